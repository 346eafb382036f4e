// What a database error means, whichever way it arrives: Prisma's P2002 on PostgreSQL, or the
// driver adapter's own error carrying SQLSTATE 23505 (as PGlite's adapter throws it).
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string; originalCode?: string } } | null;
  return e?.code === 'P2002' || e?.code === '23505' || e?.cause?.code === '23505' || e?.cause?.originalCode === '23505';
}
