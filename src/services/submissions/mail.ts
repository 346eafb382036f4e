// What a submission tells its submitter, queued in the transaction of what it tells (mail/outbox.ts):
// received (with the link that follows it), approved (with the event's page), rejected (with the
// editors' reason, read when the message is written). A remote event's submission has no address:
// nothing is queued for it.
import type { Driver } from '../../db/driver.js';
import type { MailSecrets, SubmissionMailKind } from '../../mail/outbox.js';

export async function queueSubmissionMail(
  run: Driver,
  kind: SubmissionMailKind,
  submissionId: number,
  secrets?: MailSecrets,
): Promise<void> {
  await run(
    `INSERT INTO mail_outbox (kind, event_id, submission_id, recipient, name, secrets)
    SELECT $1::text, event_id, id, submitter_email, submitter_name, $3::jsonb FROM submissions
    WHERE id = $2::int AND submitter_email IS NOT NULL`,
    [kind, submissionId, secrets ? JSON.stringify(secrets) : null],
  );
}
