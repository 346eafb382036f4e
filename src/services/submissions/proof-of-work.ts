// The proof of work of a submission: ALTCHA's open protocol (version 2), with altcha-lib, its
// authors' own library. The service picks the counter (deterministic mode) and signs both the
// challenge and the key it leads to, so that checking a solution costs two HMACs whatever the
// work asked; the solver tries counters until its key starts as the challenge's. No third party is
// asked and nothing about the solver is kept. A challenge is good once (submission_challenges'
// primary key), until it expires.
import { randomBytes } from 'node:crypto';
import { createChallenge, randomInt, verifySolution, type Challenge, type Payload } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { SubmissionSettings } from '../../config/submissions.js';
import type { PrismaClient } from '../../db/client.js';
import type { Driver } from '../../db/driver.js';
import { SubmissionRefused } from '../../domain/errors.js';

/** How long a challenge may be solved and sent. */
const LIFETIME_SECONDS = 600;

interface Keys {
  challenge: string;
  key: string;
}

/**
 * The signing keys every instance shares, made by the first instance that needs them: the insert
 * that finds them made leaves them as they are, and every instance reads the same row.
 */
const keysOf = new WeakMap<PrismaClient, Promise<Keys>>();
function signingKeys(db: PrismaClient): Promise<Keys> {
  let keys = keysOf.get(db);
  if (!keys) {
    keys = (async () => {
      const made = JSON.stringify({ challenge: randomBytes(32).toString('hex'), key: randomBytes(32).toString('hex') });
      await db.$executeRaw`INSERT INTO service_secrets (name, value) VALUES ('submission-pow', ${made}) ON CONFLICT (name) DO NOTHING`;
      const [row] = await db.$queryRaw<
        { value: string }[]
      >`SELECT value FROM service_secrets WHERE name = 'submission-pow'`;
      return JSON.parse(row.value) as Keys;
    })();
    keys.catch(() => keysOf.delete(db));
    keysOf.set(db, keys);
  }
  return keys;
}

/** A new challenge, of the configured work. */
export async function newChallenge(db: PrismaClient, settings: SubmissionSettings): Promise<Challenge> {
  const keys = await signingKeys(db);
  return createChallenge({
    algorithm: 'SHA-256',
    cost: 1,
    counter: randomInt(Math.max(1, settings.powCost)),
    deriveKey,
    expiresAt: Math.floor(Date.now() / 1000) + LIFETIME_SECONDS,
    hmacSignatureSecret: keys.challenge,
    hmacKeySignatureSecret: keys.key,
  });
}

const refused = () =>
  new SubmissionRefused(
    'challenge',
    'The proof of work is missing, wrong, used or expired: solve a new challenge (GET /submissions/challenge).',
  );

/** The payload the ALTCHA widget sends (base64 JSON of the challenge and its solution), or undefined. */
function payloadOf(sent: string): Payload | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(sent, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  const { challenge, solution } = isObject(parsed) ? parsed : {};
  const valid =
    isObject(challenge) &&
    typeof challenge.signature === 'string' &&
    isObject(challenge.parameters) &&
    isObject(solution) &&
    typeof solution.counter === 'number' &&
    typeof solution.derivedKey === 'string';
  return valid ? (parsed as Payload) : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A proof of work checked, to be spent in the submission's transaction (spendProof). */
export interface Proof {
  signature: string;
  expires: Date;
}

/**
 * Refuses a submission without a solved, unexpired challenge of this service (400); answers the
 * proof to spend, or undefined where the service asks for none. Checked before the submission's
 * transaction, so that no transaction waits on the signing keys' read.
 */
export async function checkProof(
  db: PrismaClient,
  settings: SubmissionSettings,
  sent: string | undefined,
): Promise<Proof | undefined> {
  if (!settings.powCost) return undefined;
  const payload = sent === undefined ? undefined : payloadOf(sent);
  if (!payload) throw refused();
  const keys = await signingKeys(db);
  const result = await verifySolution({
    challenge: payload.challenge,
    solution: payload.solution,
    deriveKey,
    hmacSignatureSecret: keys.challenge,
    hmacKeySignatureSecret: keys.key,
  }).catch(() => undefined);
  if (!result?.verified) throw refused();
  return {
    signature: payload.challenge.signature ?? '',
    expires: new Date((payload.challenge.parameters.expiresAt ?? 0) * 1000),
  };
}

/**
 * Uses a checked proof up in the submission's transaction: two submissions with one proof cannot
 * both pass, as the second waits on the first's row, then finds it taken (400).
 */
export async function spendProof(run: Driver, proof: Proof | undefined): Promise<void> {
  if (!proof) return;
  const rows = await run(
    `INSERT INTO submission_challenges (signature, expires_at) VALUES ($1::text, $2::timestamptz)
    ON CONFLICT (signature) DO NOTHING RETURNING signature`,
    [proof.signature, proof.expires.toISOString()],
  );
  if (!rows.length) throw refused();
}
