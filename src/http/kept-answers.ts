// The REST pipeline's side of the answers kept for anonymous reads (http/answer-cache.ts): whether
// to keep any, and sending one kept as it would have been built.
import type { Request, Response } from 'express';
import type { Operation } from 'openapi-backend';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { dataVersions } from '../db/data-version.js';
import { usableMethods } from './allowed-methods.js';
import { AnswerCache, type KeptAnswer } from './answer-cache.js';
import type { RateLimits } from './rate-limits.js';
import { sendRendered } from './reply.js';

/** The answers kept, unless RESPONSE_CACHE_MB is 0. */
export const keptAnswers = (config: Config, db: Database): AnswerCache | undefined =>
  config.responseCacheMegabytes > 0
    ? new AnswerCache(dataVersions(db.prisma), config.responseCacheMegabytes)
    : undefined;

/**
 * Whether answers of the operation may be kept. RSVPs' never are (paths under `/rsvps`): who reads
 * one reads attendee data as itself (an organiser, its owner, and with issue 53's anonymous RSVP an
 * owner holding a token), and a kept answer goes to every anonymous request with the same URL. An
 * anonymous read of them is answered anew each time, and cheaply: nothing but the caller's own.
 * Submissions' neither (paths under `/submissions`): a challenge is good once, and a submission's
 * state is its submitter's, by a token.
 */
export const mayKeep = (operation: Operation): boolean => !/\/(rsvps|submissions)\b/.test(operation.path);

/**
 * Sends an anonymous read the answer kept for it, as it would have been built: counted as a read
 * (and each object it embeds as another), with the methods an anonymous caller may use.
 */
export async function sendKept(
  rateLimits: RateLimits,
  operations: Operation[],
  req: Request,
  res: Response,
  kept: KeptAnswer,
): Promise<void> {
  const anonymous = { caller: null, address: req.ip };
  res.set('Allow', usableMethods(operations, null).join(', '));
  await rateLimits.take('reads', anonymous, res);
  if (kept.embedded) await rateLimits.charge('reads', anonymous, res, kept.embedded);
  sendRendered(req, res, kept.rendered);
}
