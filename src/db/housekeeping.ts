// Rows that only matter for a while: sign-in failures whose window has ended and idempotency keys
// older than a day. Each instance purges now and then; running it on several at once is harmless.
import type { Database } from './client.js';

export async function purgeExpired(db: Database, authWindowSeconds: number, idempotencyHours: number): Promise<void> {
  const now = Date.now();
  await db.prisma.authFailure.deleteMany({ where: { windowStart: { lt: new Date(now - authWindowSeconds * 1000) } } });
  await db.prisma.idempotencyKey.deleteMany({
    where: { createdAt: { lt: new Date(now - idempotencyHours * 3600_000) } },
  });
}

/** Purges every `intervalMs` until the returned function is called; failures wait for the next round. */
export function startHousekeeping(
  db: Database,
  authWindowSeconds: number,
  idempotencyHours: number,
  intervalMs = 10 * 60_000,
  onError?: (err: unknown) => void,
) {
  const timer = setInterval(() => {
    purgeExpired(db, authWindowSeconds, idempotencyHours).catch((err: unknown) => onError?.(err));
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
