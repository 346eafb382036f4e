// What a database error means, whichever way it arrives: Prisma's P2002 on PostgreSQL, or the
// driver adapter's own error carrying SQLSTATE 23505 (as PGlite's adapter throws it).
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string; originalCode?: string } } | null;
  return e?.code === 'P2002' || e?.code === '23505' || e?.cause?.code === '23505' || e?.cause?.originalCode === '23505';
}

/**
 * PostgreSQL gave up one of two transactions that waited on each other (40P01), or could not
 * serialize it (40001): running it again is safe, as nothing of it was committed.
 */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string; originalCode?: string }; meta?: { code?: string } } | null;
  const codes = [e?.code, e?.cause?.code, e?.cause?.originalCode, e?.meta?.code];
  return codes.some((code) => code === '40P01' || code === '40001' || code === 'P2034');
}
