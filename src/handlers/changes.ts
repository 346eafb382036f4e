// The change feed (services/changes.ts), each change as serializers/changes.ts shows it.
import type { Call, Reply } from '../http/handler.js';
import { mapInSlices } from '../lib/slices.js';
import { serializeChange } from '../serializers/changes.js';
import { readChanges } from '../services/changes.js';

export async function listChanges(call: Call<'listChanges'>): Promise<Reply> {
  const { items, next, more } = await readChanges(call.context, call.query.since, call.query.per_page);
  const options = {
    urls: call.urls,
    siteZone: call.context.siteZone,
    caller: call.context.caller,
    currency: call.config.costCurrency,
  };
  const changes = await mapInSlices(items, (item) => serializeChange(item, options));
  // The feed holds back changes behind transactions still running anywhere on the database server
  // (services/changes.ts), which end without changing the data: built every time.
  return { body: { changes, next_cursor: next, more }, unkept: true };
}
