// The calendar actor's key pairs: RSA (draft-cavage HTTP Signatures, which Mastodon, Mobilizon and
// Gancio verify) and Ed25519 (Object Integrity Proofs), as Fedify recommends. Made once and kept in
// the database (federation_keys, migration federation); each instance reads them once.
import { exportJwk, generateCryptoKeyPair, importJwk } from '@fedify/fedify';
import type { JsonWebKey, webcrypto } from 'node:crypto';
import type { PrismaClient } from '../db/client.js';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

export const KEY_ALGORITHMS = ['RSASSA-PKCS1-v1_5', 'Ed25519'] as const;

interface KeyRow {
  algorithm: string;
  private_jwk: JsonWebKey;
  public_jwk: JsonWebKey;
}

/**
 * The key pairs, RSA first (Fedify names the first pair's key `#main-key`, the id peers look for).
 * Two instances starting together may both generate a pair: each inserts with ON CONFLICT DO
 * NOTHING and then reads what the table holds, so both use the pair that was inserted first.
 */
export async function loadKeyPairs(db: PrismaClient): Promise<CryptoKeyPair[]> {
  let rows = await selectKeys(db);
  if (rows.length < KEY_ALGORITHMS.length) {
    for (const algorithm of KEY_ALGORITHMS.filter((a) => !rows.some((r) => r.algorithm === a))) {
      const pair = await generatePair(algorithm);
      await db.$executeRaw`
        INSERT INTO federation_keys (algorithm, private_jwk, public_jwk)
        VALUES (${algorithm}, ${JSON.stringify(await exportJwk(pair.privateKey))}::jsonb,
          ${JSON.stringify(await exportJwk(pair.publicKey))}::jsonb)
        ON CONFLICT (algorithm) DO NOTHING`;
    }
    rows = await selectKeys(db);
  }
  return Promise.all(
    KEY_ALGORITHMS.map(async (algorithm) => {
      const row = rows.find((r) => r.algorithm === algorithm);
      if (!row) throw new Error(`the ${algorithm} key of the federation actor is missing`);
      return {
        privateKey: (await importJwk(row.private_jwk, 'private')) as webcrypto.CryptoKey,
        publicKey: (await importJwk(row.public_jwk, 'public')) as webcrypto.CryptoKey,
      };
    }),
  );
}

/**
 * A new pair. RSA at 2048 bits, as Mastodon's and Mobilizon's keys are, rather than Fedify's 4096:
 * every delivery is signed with it, and here a 4096-bit key took 1.7 s to make and 2.65 ms per
 * signature, a 2048-bit one 0.14 s and 0.33 ms (docs/federation.md, "Measured").
 */
async function generatePair(algorithm: (typeof KEY_ALGORITHMS)[number]): Promise<CryptoKeyPair> {
  if (algorithm === 'Ed25519') return (await generateCryptoKeyPair(algorithm)) as CryptoKeyPair;
  return crypto.subtle.generateKey(
    { name: algorithm, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
}

const selectKeys = (db: PrismaClient) =>
  db.$queryRaw<KeyRow[]>`SELECT algorithm, private_jwk, public_jwk FROM federation_keys`;

/** Loads the pairs once per instance (and again after a failure), whoever asks first. */
export function keyPairsOnce(db: PrismaClient): () => Promise<CryptoKeyPair[]> {
  let loading: Promise<CryptoKeyPair[]> | undefined;
  return () => {
    loading ??= loadKeyPairs(db).catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
