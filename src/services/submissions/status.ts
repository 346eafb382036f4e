// A submission as its submitter follows it, by the token its receipt gave (services/secrets.ts).
// A wrong token and an unknown submission are one answer (404), so that a token cannot be tried
// against submissions one by one to learn which exist.
import { NotFound } from '../../domain/errors.js';
import type { SubmissionStatus } from '../../domain/submissions.js';
import type { ServiceContext } from '../context.js';
import { matches } from '../secrets.js';

export async function submissionStatus(
  ctx: ServiceContext,
  id: number,
  token: string | undefined,
): Promise<SubmissionStatus> {
  const rows = await ctx.db.$queryRaw<
    {
      id: number;
      state: string;
      token_hash: string;
      title: string;
      start_local: Date;
      submitted_at: Date;
      decided_at: Date | null;
      reason: string | null;
      slug: string;
      status: string;
    }[]
  >`SELECT s.id, s.state, s.token_hash, s.submitted_at, s.decided_at, s.reason, e.title, e.start_local, e.slug, e.status
    FROM submissions s JOIN events e ON e.id = s.event_id WHERE s.id = ${id}::int`;
  const row = rows.at(0);
  if (!row || !matches(token, row.token_hash)) throw new NotFound('submission', id);
  const state = row.state === 'approved' || row.state === 'rejected' ? row.state : 'pending';
  return {
    id: row.id,
    state,
    title: row.title,
    startLocal: row.start_local,
    submittedAt: row.submitted_at,
    decidedAt: row.decided_at,
    reason: state === 'rejected' ? row.reason : null,
    slug: state === 'approved' && row.status === 'publish' ? row.slug : null,
  };
}
