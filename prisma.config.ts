// Prisma CLI configuration. Migrations are authored against an embedded PGlite database, so that
// `prisma migrate dev` needs no server and no native engine (see ../shared/STACK.md).
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { defineConfig } from 'prisma/config';

// Every CLI command wants a postgresql:// URL even though the adapter connects; without one it
// falls back to a native engine that cannot be downloaded here.
process.env.DATABASE_URL ||= 'postgresql://localhost/unused';

export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  experimental: { adapter: true },
  engine: 'js',
  // In memory: the CLI only needs a database to diff against, and replays the migrations each time.
  adapter: () => Promise.resolve(new PrismaPGlite(new PGlite()) as never), // adapter types lag Prisma's; see src/db/client.ts
});
