// What a database error means, whichever way it arrives: Prisma's P2002 on PostgreSQL, or the
// driver adapter's own error carrying SQLSTATE 23505 (as PGlite's adapter throws it), or a raw
// query's P2010 with the adapter's error in its meta.
export function isUniqueViolation(err: unknown): boolean {
  return codesOf(err).some((code) => code === 'P2002' || code === '23505');
}

/** Every code an error carries, wherever Prisma, its driver adapters and pg put it. */
function codesOf(err: unknown): (string | undefined)[] {
  const e = err as {
    code?: string;
    cause?: { code?: string; originalCode?: string };
    meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } };
  } | null;
  return [
    e?.code,
    e?.cause?.code,
    e?.cause?.originalCode,
    e?.meta?.code,
    e?.meta?.driverAdapterError?.cause?.originalCode,
  ];
}

/**
 * A row a write refers to (a venue, a term, a parent category, an author) was deleted by another
 * transaction after the write checked it: the write's checks, run again, now see it gone.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as {
    code?: string;
    cause?: { code?: string; originalCode?: string };
    meta?: { driverAdapterError?: { cause?: { kind?: string; code?: string; originalCode?: string } } };
  } | null;
  const cause = e?.meta?.driverAdapterError?.cause;
  if (e?.code === 'P2003' || cause?.kind === 'ForeignKeyConstraintViolation') return true;
  // SQLSTATE 23503, where pg and the driver adapters put it.
  // A raw query's on PGlite carries it as the adapter's cause's `code`.
  return [e?.code, e?.cause?.code, e?.cause?.originalCode, cause?.originalCode, cause?.code].includes('23503');
}

/**
 * PostgreSQL gave up one of two transactions that waited on each other (40P01), or could not
 * serialize it (40001): running it again is safe, as nothing of it was committed.
 */
export function isTransient(err: unknown): boolean {
  return codesOf(err).some((code) => code === '40P01' || code === '40001' || code === 'P2034');
}

/**
 * A statement gave up waiting for a lock another writer holds (55P03, `lock_timeout`): contention,
 * answered as a conflict to retry later, not as a database that is down.
 */
export function isLockTimeout(err: unknown): boolean {
  return codesOf(err).some((code) => code === '55P03');
}

// What says "the database cannot be reached or cannot take the work now", whichever layer reports it
// (pg, pg-pool, Prisma and its driver adapters wrap one another's errors): SQLSTATE classes 08
// (connection), 53 (insufficient resources: disk full, out of memory, too many connections), 57P
// (server shutting down, cannot connect now), 58 (I/O error), statement timeouts (57014); node's
// socket errors; Prisma's connection, pool and transaction-start
// timeouts (a transaction that could not get a connection in time: the database cannot take the work now).
const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '53', '57P', '58'];
const UNAVAILABLE_SQLSTATES = new Set(['57014']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOSPC',
  'EIO',
  'EDQUOT',
]);
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
const UNAVAILABLE_MESSAGES = [
  'connection terminated',
  'timeout exceeded when trying to connect',
  'query read timeout',
  'connection timeout',
  'client has encountered a connection error',
  'server closed the connection',
  'server has closed the connection',
  'cannot use a pool after calling end',
  'database system is shutting down',
  'database system is starting up',
  'no space left on device',
  'pglite is closed',
];

/** Whether an error means the database is unavailable (503), as opposed to a fault of ours (500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): boolean => {
    if (value === null || typeof value !== 'object' || seen.has(value) || depth > 4) return false;
    seen.add(value);
    const e = value as Record<string, unknown>;
    for (const key of ['code', 'originalCode', 'errno', 'kind']) {
      const code = e[key];
      if (typeof code !== 'string') continue;
      if (UNAVAILABLE_ERRNOS.has(code) || UNAVAILABLE_PRISMA.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
      if (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE_PREFIXES.some((prefix) => code.startsWith(prefix)))
        return true;
    }
    for (const key of ['message', 'originalMessage']) {
      const message = e[key];
      if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.toLowerCase().includes(m)))
        return true;
    }
    return ['cause', 'meta', 'driverAdapterError', 'error'].some((key) => visit(e[key], depth + 1));
  };
  return visit(err, 0);
}
