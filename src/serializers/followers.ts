// The calendar's followers as the API shows them (openapi/components/schemas/Follower.yaml).
import type { StoredFollower } from '../federation/followers.js';
import type { Urls } from '../http/urls.js';
import { formatDateTime } from '../lib/dates.js';

export const serializeFollower = (row: StoredFollower, urls: Urls) => ({
  id: row.id,
  actor: row.actor_id,
  inbox: row.inbox,
  shared_inbox: row.shared_inbox,
  state: row.accepted ? 'accepted' : 'waiting',
  created_utc: formatDateTime(row.created_at, 'UTC'),
  rest_url: `${urls.base}/followers/${row.id}`,
});
