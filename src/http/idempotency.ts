// `Idempotency-Key` on creates: a client that retries a create (after a timeout, a dropped
// connection) with the same key gets the first answer again and nothing new is created. The first
// answer is kept in the database for 24 hours, so a retry that reaches another instance, or comes
// after a restart, is recognised too. The same key with another body is a client error (422).
import { createHash } from 'node:crypto';
import type { OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { PrismaClient } from '../db/client.js';
import { ApiError, invalidParams } from './errors.js';
import type { Call, Reply } from './handler.js';

export const IDEMPOTENCY_HOURS = 24;
/** A first request still unanswered after this long died with its instance; no request runs that long. */
const ABANDONED_AFTER_MS = 60_000;
const KEY = /^[\x21-\x7e]{1,200}$/;

type Handler = (call: Call) => Promise<Reply>;

/**
 * The operations whose document takes an Idempotency-Key: the creates. Every other operation is a
 * read or idempotent already; a webhook subscription takes none, for its answer holds a secret
 * shown once, which a replay would store in the clear and show again.
 */
export const takesIdempotencyKey = (api: OpenAPIBackend): Set<string | undefined> =>
  new Set(
    api.router
      .getOperations()
      .filter((operation) =>
        (operation.parameters as OpenAPIV3_1.ParameterObject[] | undefined)?.some(
          (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
        ),
      )
      .map((operation) => operation.operationId),
  );

/** Wraps a create handler: answers a repeated key from the store, and stores the first answer. */
export function idempotent(
  operation: string,
  handler: Handler,
): (call: Call, key: string | undefined) => Promise<Reply> {
  return async (call, key) => {
    if (key === undefined) return handler(call);
    if (!KEY.test(key))
      throw invalidParams({ 'Idempotency-Key': 'Idempotency-Key must be 1 to 200 visible ASCII characters.' });
    const prisma = call.context.db;
    const userId = call.context.caller?.id ?? 0;
    const body: unknown = call.body; // any operation's Call: typed, but an operation may have no body
    const requestHash = createHash('sha256')
      .update(`${operation}\n${JSON.stringify(body ?? null)}`)
      .digest('hex');

    const claimed = await claim(prisma, userId, key, operation, requestHash);
    if (claimed !== 'new') return claimed;
    try {
      const reply = await handler(call);
      await prisma.idempotencyKey.update({
        where: { userId_key: { userId, key } },
        data: { status: reply.status ?? 200, headers: reply.headers ?? {}, body: JSON.stringify(reply.body) },
      });
      return reply;
    } catch (err) {
      // A refused create created nothing: the key is free for a corrected request.
      await prisma.idempotencyKey.delete({ where: { userId_key: { userId, key } } }).catch(() => undefined);
      throw err;
    }
  };
}

/** Takes the key for this request ('new'), or answers from an earlier request that took it. */
async function claim(
  prisma: PrismaClient,
  userId: number,
  key: string,
  operation: string,
  requestHash: string,
): Promise<'new' | Reply> {
  const expired = new Date(Date.now() - IDEMPOTENCY_HOURS * 3600_000);
  await prisma.idempotencyKey.deleteMany({ where: { userId, key, createdAt: { lt: expired } } });
  // ON CONFLICT DO NOTHING rather than a failed insert, which would end a batch's whole transaction
  // (http/batch.ts); a concurrent first request with the key makes this one wait for its outcome.
  const { count } = await prisma.idempotencyKey.createMany({
    data: [{ userId, key, operation, requestHash }],
    skipDuplicates: true,
  });
  if (count === 1) return 'new';
  const earlier = await prisma.idempotencyKey.findUnique({ where: { userId_key: { userId, key } } });
  if (!earlier) return claim(prisma, userId, key, operation, requestHash); // released meanwhile
  if (earlier.operation !== operation || earlier.requestHash !== requestHash) {
    throw new ApiError(
      422,
      'rest_idempotency_key_reused',
      'This Idempotency-Key was used for a different request; use a new key.',
    );
  }
  if (earlier.status === null && earlier.createdAt.getTime() < Date.now() - ABANDONED_AFTER_MS) {
    // Its first request never finished (the instance died): the key is free again.
    await prisma.idempotencyKey.deleteMany({ where: { userId, key, status: null, createdAt: earlier.createdAt } });
    return claim(prisma, userId, key, operation, requestHash);
  }
  if (earlier.status === null) {
    throw new ApiError(
      409,
      'rest_idempotency_in_progress',
      'A request with this Idempotency-Key is still being answered; retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  }
  return {
    status: earlier.status,
    body: JSON.parse(earlier.body ?? 'null'),
    headers: { ...(earlier.headers as Record<string, string>), 'Idempotent-Replayed': 'true' },
  };
}
