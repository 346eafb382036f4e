// Public submissions in tests (src/services/submissions/): a challenge solved as a browser's ALTCHA
// widget solves it (altcha-lib's solveChallenge), and a submission that passes every defence.
import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { RequestOptions, TestServer } from './server.js';

/** The proof of work of a fresh challenge of `s`, as the form's field `altcha` carries it. */
export async function solvedChallenge(s: TestServer, headers: Record<string, string> = {}): Promise<string> {
  const r = await s.get('/submissions/challenge', { as: null, headers });
  if (r.status !== 200) throw new Error(`challenge: ${r.status} ${JSON.stringify(r.body)}`);
  const challenge = r.body as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('challenge not solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

let serial = 0;
let addresses = 0;

/** A documentation address (RFC 5737) no other submission of this process came from. */
const nextAddress = () => {
  addresses += 1;
  return `198.51.${100 + Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

/** A submission no defence trips, with `fields` over it. */
export function submission(fields: Record<string, unknown> = {}): Record<string, unknown> {
  serial += 1;
  return {
    title: `Street piano afternoon ${serial}`,
    start_date: '2043-05-16 14:00',
    end_date: '2043-05-16 17:00',
    timezone: 'Europe/Paris',
    description: 'Bring your sheet music; the piano stays on the square all afternoon.',
    submitter: { name: 'Ana Lima', email: `ana${serial}@example.org` },
    ...fields,
  };
}

/**
 * Sends a submission with a solved challenge, from `address` (TRUST_PROXY must trust loopback); by
 * default from an address of its own, so that the day's limit per address is no test's concern.
 */
export async function submit(s: TestServer, fields: Record<string, unknown> = {}, address = nextAddress()) {
  const headers = { 'X-Forwarded-For': address };
  return s.post(
    '/submissions',
    { ...submission(fields), altcha: await solvedChallenge(s, headers) },
    { as: null, headers },
  );
}

/**
 * Sends a submission with an image as a `multipart/form-data` form (the document's SubmissionForm):
 * its JSON in `submission` (as a file part of its own with `jsonAsFile`, as some clients send it),
 * the image in `image`; `parts` replaces the form's parts for hostile forms.
 */
export async function submitWithImage(
  s: TestServer,
  image: Buffer | undefined,
  fields: Record<string, unknown> = {},
  options: {
    jsonAsFile?: boolean;
    address?: string;
    as?: RequestOptions['as'];
    parts?: FormData;
    solve?: boolean;
  } = {},
) {
  const { jsonAsFile = false, address = nextAddress(), as = null, parts, solve = true } = options;
  const headers = { 'X-Forwarded-For': address };
  let form = parts;
  if (!form) {
    const json = JSON.stringify({
      ...submission(fields),
      ...(solve ? { altcha: await solvedChallenge(s, headers) } : {}),
    });
    form = new FormData();
    if (jsonAsFile) form.append('submission', new Blob([json], { type: 'application/json' }), 'submission.json');
    else form.append('submission', json);
    if (image) form.append('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'Poster.jpg');
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const raw = {
    contentType: request.headers.get('content-type') ?? '',
    data: Buffer.from(await request.arrayBuffer()),
  };
  return s.request('POST', '/submissions', { raw, as, headers });
}
