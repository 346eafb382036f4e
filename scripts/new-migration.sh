#!/usr/bin/env bash
# Writes prisma/migrations/<timestamp>_<name>/migration.sql from the change to prisma/schema.prisma
# since the last commit. Prisma's `migrate dev` cannot apply scripts through the PGlite adapter here,
# so the migration is diffed schema-to-schema, which needs no database. Review the SQL, then commit.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: npm run migration:new -- <name>}
previous=$(mktemp --suffix=.prisma)
trap 'rm -f "$previous"' EXIT
git show HEAD:prisma/schema.prisma > "$previous"
dir="prisma/migrations/$(date -u +%Y%m%d%H%M%S)_${name}"
mkdir -p "$dir"
npx prisma migrate diff --from-schema-datamodel "$previous" --to-schema-datamodel prisma/schema.prisma --script > "$dir/migration.sql"
echo "Wrote $dir/migration.sql"
