// Webhook secrets at rest. A receiver checks signatures made with the secret, so the service must
// keep the secret itself, not a hash. With WEBHOOK_SECRET_KEY set, secrets are stored encrypted
// (AES-256-GCM, a key derived from that setting with HKDF), so that a copy of the database alone
// cannot sign messages; without it they are stored as they are (docs/decisions.md, "Webhooks").
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

const keyOf = (setting: string) =>
  Buffer.from(hkdfSync('sha256', setting, 'calendar-events-service', 'webhook secrets', 32));

/** The secret as stored: encrypted under `setting` when there is one. */
export function seal(secret: string, setting: string | undefined): string {
  if (!setting) return secret;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(setting), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${PREFIX}${[iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.')}`;
}

/** The secret a stored value holds; throws when it is encrypted and `setting` cannot open it. */
export function open(stored: string, setting: string | undefined): string {
  if (!stored.startsWith(PREFIX)) return stored;
  if (!setting) throw new Error('This webhook secret is encrypted, and WEBHOOK_SECRET_KEY is not set.');
  const [iv, tag, sealed] = stored
    .slice(PREFIX.length)
    .split('.')
    .map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', keyOf(setting), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
}
