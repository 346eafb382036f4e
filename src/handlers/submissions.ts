// Public submissions and their moderation (services/submissions/): who may do what is the
// service's to assert.
import type { components } from '../../generated/api.js';
import { pageOf, totalPages } from '../domain/paging.js';
import type { Call, Reply } from '../http/handler.js';
import { UPLOAD } from '../http/upload-body.js';
import type { Upload } from '../media/images.js';
import { serializeReceipt, serializeSubmission, serializeSubmissionStatus } from '../serializers/submissions.js';
import {
  approveSubmission as approve,
  getSubmission as readSubmission,
  listSubmissions as readSubmissions,
  rejectSubmission as reject,
} from '../services/submissions/moderate.js';
import { newChallenge } from '../services/submissions/proof-of-work.js';
import { submissionStatus } from '../services/submissions/status.js';
import { openSubmissions, submitEvent as submit } from '../services/submissions/submit.js';

type SubmissionInput = components['schemas']['SubmissionInput'];

const options = (call: Call) => ({
  urls: call.urls,
  siteZone: call.context.siteZone,
  caller: call.context.caller,
  single: true,
  currency: call.config.costCurrency,
  links: true,
});

/** Nothing of these is kept by anyone: a challenge is good once, a state is its submitter's. */
const PRIVATE = { 'Cache-Control': 'no-store' };

export async function getSubmissionChallenge(call: Call<'getSubmissionChallenge'>): Promise<Reply> {
  const settings = openSubmissions(call.context);
  return { body: await newChallenge(call.context.db, settings), headers: PRIVATE, unkept: true };
}

export async function submitEvent(call: Call<'submitEvent'>): Promise<Reply> {
  // A form's `submission` was read into the body, its image beside it (http/upload-body.ts).
  const body = call.body as SubmissionInput & { [UPLOAD]?: Upload };
  const sent = { input: body, image: body[UPLOAD] };
  const receipt = await submit(call.context, sent, call.address, call.config.media);
  return { status: 202, body: serializeReceipt(receipt, call.urls), headers: PRIVATE, unkept: true };
}

export async function getSubmissionStatus(call: Call<'getSubmissionStatus'>): Promise<Reply> {
  const status = await submissionStatus(call.context, call.params.id, call.header('Submission-Token'));
  return { body: serializeSubmissionStatus(status, call.urls), headers: PRIVATE, unkept: true };
}

export async function listSubmissions(call: Call<'listSubmissions'>): Promise<Reply> {
  const page = pageOf(call.query.page, call.query.per_page);
  const { items, total } = await readSubmissions(call.context, call.query.state ?? 'pending', {
    take: page.perPage,
    skip: page.offset,
  });
  const pages = totalPages(total, page.perPage);
  return {
    body: { submissions: items.map((row) => serializeSubmission(row, options(call))), total, total_pages: pages },
    headers: { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(pages) },
    unkept: true,
  };
}

export async function getSubmission(call: Call<'getSubmission'>): Promise<Reply> {
  return { body: serializeSubmission(await readSubmission(call.context, call.params.id), options(call)), unkept: true };
}

export async function approveSubmission(call: Call<'approveSubmission'>): Promise<Reply> {
  const body = (call.body as typeof call.body | undefined) ?? {};
  return { body: serializeSubmission(await approve(call.context, call.params.id, body), options(call)) };
}

export async function rejectSubmission(call: Call<'rejectSubmission'>): Promise<Reply> {
  return { body: serializeSubmission(await reject(call.context, call.params.id, call.body.reason), options(call)) };
}
