// Submissions as the document's Submission, SubmissionStatus and SubmissionReceipt describe them.
import type { components } from '../../generated/api.js';
import type { Urls } from '../http/urls.js';
import { formatDateTime } from '../lib/dates.js';
import { submissionStatusUrl } from '../mail/messages.js';
import type { Receipt, SubmissionRecord, SubmissionStatus } from '../domain/submissions.js';
import { eventPermalink, type EventSerializeOptions, serializeEvent } from './events.js';

type Submission = components['schemas']['Submission'];

const utc = (date: Date | null) => (date ? formatDateTime(date, 'UTC') : null);

export function serializeSubmission(row: SubmissionRecord, options: EventSerializeOptions): Submission {
  return {
    id: row.id,
    state: row.state,
    submitted_utc: formatDateTime(row.submittedAt, 'UTC'),
    decided_utc: utc(row.decidedAt),
    submitter: { name: row.submitterName, email: row.submitterEmail, account: row.accountId },
    source: row.sourceUrl === null ? null : { id: row.federationSourceId, actor: row.sourceActor, url: row.sourceUrl },
    new: {
      venue: row.newVenueId,
      organizer: row.newOrganizerId,
      image: row.newImageId,
      categories: row.suggestedCategories,
    },
    links: row.links,
    spam_reasons: row.spamReasons as Submission['spam_reasons'],
    reason: row.reason,
    event: serializeEvent(row.event, options),
  };
}

export function serializeSubmissionStatus(
  row: SubmissionStatus,
  urls: Urls,
): components['schemas']['SubmissionStatus'] {
  return {
    id: row.id,
    state: row.state,
    title: row.title,
    start_date: formatDateTime(row.startLocal, 'UTC'),
    submitted_utc: formatDateTime(row.submittedAt, 'UTC'),
    decided_utc: utc(row.decidedAt),
    reason: row.reason,
    link: row.slug ? eventPermalink(row.slug, urls) : null,
  };
}

export function serializeReceipt(receipt: Receipt, urls: Urls): components['schemas']['SubmissionReceipt'] {
  return {
    id: receipt.id,
    state: 'pending',
    token: receipt.token,
    status_url: submissionStatusUrl(urls, receipt.id, receipt.token),
  };
}
