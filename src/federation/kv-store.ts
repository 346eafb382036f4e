// Fedify's KvStore over the service's own database (table federation_kv, migration federation), so
// that the embedded PGlite default and PostgreSQL both hold it, every instance sees the same
// entries, and no second store needs running (docs/decisions.md, "Federation storage").
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import type { PrismaClient } from '../db/client.js';

/** The part of Temporal.Duration read here (TypeScript's lib does not declare Temporal yet). */
interface Duration {
  total(unit: { unit: 'millisecond' }): number;
}

/** Fedify's TTL, a Temporal.Duration, in milliseconds. */
const ttlMs = (options?: KvStoreSetOptions) => (options?.ttl as Duration | undefined)?.total({ unit: 'millisecond' });

const expiry = (options?: KvStoreSetOptions) => {
  const ms = ttlMs(options);
  return ms === undefined ? null : new Date(Date.now() + ms);
};

export class DatabaseKvStore implements KvStore {
  constructor(private readonly db: PrismaClient) {}

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const rows = await this.db.$queryRaw<{ value: T }[]>`
      SELECT value FROM federation_kv
      WHERE key = ${[...key]}::text[] AND (expires_at IS NULL OR expires_at > now())`;
    return rows.at(0)?.value;
  }

  // One upsert: two instances setting the same key at once both succeed, the later one kept.
  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO federation_kv (key, value, expires_at)
      VALUES (${[...key]}::text[], ${JSON.stringify(value)}::jsonb, ${expiry(options)}::timestamptz)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`;
  }

  async delete(key: KvKey): Promise<void> {
    await this.db.$executeRaw`DELETE FROM federation_kv WHERE key = ${[...key]}::text[]`;
  }

  /**
   * Compare-and-swap as one conditional statement, so that of two instances swapping from the same
   * value only one succeeds: the insert when the key is absent (the primary key refuses the
   * second), the update when it holds `expected` (the row lock makes the second re-check and fail).
   */
  async cas(key: KvKey, expected: unknown, value: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    const json = JSON.stringify(value);
    if (expected === undefined) {
      // An expired entry counts as absent: it is replaced.
      const n = await this.db.$executeRaw`
        INSERT INTO federation_kv (key, value, expires_at)
        VALUES (${[...key]}::text[], ${json}::jsonb, ${expiry(options)}::timestamptz)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
        WHERE federation_kv.expires_at IS NOT NULL AND federation_kv.expires_at <= now()`;
      return n === 1;
    }
    const n = await this.db.$executeRaw`
      UPDATE federation_kv SET value = ${json}::jsonb, expires_at = ${expiry(options)}::timestamptz
      WHERE key = ${[...key]}::text[] AND value = ${JSON.stringify(expected)}::jsonb
        AND (expires_at IS NULL OR expires_at > now())`;
    return n === 1;
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    const parts = prefix ? [...prefix] : [];
    const rows = await this.db.$queryRaw<{ key: string[]; value: unknown }[]>`
      SELECT key, value FROM federation_kv
      WHERE key[1:${parts.length}::int] = ${parts}::text[] AND (expires_at IS NULL OR expires_at > now())
      ORDER BY key`;
    for (const row of rows) yield { key: row.key as unknown as KvKey, value: row.value };
  }
}
