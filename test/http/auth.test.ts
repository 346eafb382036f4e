// Authentication: the credential forms that work, the ones that do not, and the sign-in throttle,
// which lives in the database so that every instance sharing it refuses the same client.
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { bootstrapAdmin, issueAppPassword, revokeAppPassword } from '../../src/auth/accounts.js';
import { displayAppPassword } from '../../src/auth/secrets.js';
import { loadConfig } from '../../src/config.js';
import { describeEachDatabase } from '../setup/each-database.js';

const basic = (login: string, secret: string) => `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;

describeEachDatabase(
  'authentication',
  (s, dbKind) => {
    let clients = 0;
    const client = () => ({ 'x-forwarded-for': `10.0.${dbKind === 'pglite' ? 1 : 2}.${++clients}` });
    const write = (authorization: string | undefined, headers: Record<string, string> = client()) =>
      s.post(
        '/venues',
        { venue: `Auth venue ${Math.random()}` },
        { as: null, headers: { ...headers, ...(authorization ? { authorization } : {}) } },
      );

    it('accepts Basic with the login and password, and makes the caller the author', async () => {
      const r = await write(basic('author', s.users.author.password));
      expect(r.status).toBe(201);
      expect(r.body.author).toBe(String(s.users.author.id));
    });

    it('accepts Basic with the login and an application password, grouped or not', async () => {
      expect((await write(basic('editor', s.users.editor.appPassword))).status).toBe(201);
      expect((await write(basic('editor', displayAppPassword(s.users.editor.appPassword)))).status).toBe(201);
    });

    it('accepts Bearer with an application password, and not with a login password', async () => {
      expect((await write(`Bearer ${s.users.contributor.appPassword}`)).status).toBe(201);
      const r = await write(`bearer ${s.users.contributor.password}`);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('rest_invalid_credentials');
    });

    it('answers 401 rest_invalid_credentials for wrong credentials, on reads too', async () => {
      for (const authorization of [
        basic('editor', 'wrong-password'),
        basic('nobody', 'whatever1'),
        basic('editor', s.users.author.appPassword), // another user's application password
        'Basic !!!not-base64',
        'Bearer ABCDEFGHJKLMNPQRSTUVWXYZabcdefgh',
      ]) {
        const headers = { ...client(), authorization };
        const r = await s.get('/venues', { as: null, headers });
        expect(r.status, authorization).toBe(401);
        expect(r.body).toEqual({
          code: 'rest_invalid_credentials',
          message: expect.any(String),
          data: { status: 401 },
        });
      }
    });

    it('answers 401 to credentials no account can have (NUL, over-long), and counts them as failures', async () => {
      // PostgreSQL text cannot hold NUL: asked about such a login, it failed the request with a 500.
      const appPassword = s.users.editor.appPassword;
      for (const authorization of [
        basic('edi\0tor', 'whatever'),
        basic('x'.repeat(61), 'whatever'),
        basic('editor', `${appPassword.slice(0, 4)}\0${appPassword.slice(5)}`),
        `Bearer ${appPassword.slice(0, 4)}\u00e9${appPassword.slice(5)}`,
        `Bearer ${'A'.repeat(5_000)}`,
      ]) {
        const headers = client();
        for (let i = 0; i < 3; i++) {
          const r = await s.get('/venues', { as: null, headers: { ...headers, authorization } });
          expect(r.status, JSON.stringify(authorization)).toBe(401);
          expect(r.body.code).toBe('rest_invalid_credentials');
        }
        // AUTH_MAX_FAILURES is 3: each of those counted.
        expect((await s.get('/venues', { as: null, headers: { ...headers, authorization } })).status).toBe(429);
      }
    });

    it('treats an unknown scheme as no credentials: reads work, writes get 401 rest_forbidden', async () => {
      const headers = { ...client(), authorization: 'Digest username="editor"' };
      expect((await s.get('/venues', { as: null, headers })).status).toBe(200);
      const r = await s.post('/venues', { venue: 'Nope' }, { as: null, headers });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('rest_forbidden');
    });

    it('stops accepting an application password once it is revoked', async () => {
      const issued = await issueAppPassword(s.db.prisma, 'author', 'short-lived');
      expect((await write(`Bearer ${issued.password}`)).status).toBe(201);
      await revokeAppPassword(s.db.prisma, 'author', issued.uuid);
      expect((await write(`Bearer ${issued.password}`)).status).toBe(401);
    });

    it('refuses a client with 429 and Retry-After after repeated failures, on every instance, right credentials included', async () => {
      const me = client();
      for (let i = 0; i < 3; i++) expect((await write(basic('editor', `guess-${i}`), me)).status).toBe(401);
      const refused = await write(basic('editor', s.users.editor.password), me);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rest_too_many_failed_logins');
      const retry = Number(refused.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);

      // A second instance on the same database refuses the same client.
      const config = {
        ...loadConfig({ AUTH_MAX_FAILURES: '3', AUTH_WINDOW_SECONDS: '60', TRUST_PROXY: 'true' }),
        port: 0,
      };
      const other = createApp({ config, db: s.db }).listen(0, '127.0.0.1');
      await new Promise((resolve) => other.once('listening', resolve));
      try {
        const port = (other.address() as AddressInfo).port;
        const r = await fetch(`http://127.0.0.1:${port}/wp-json/calendar/events/v1/venues`, {
          headers: { ...me, authorization: basic('editor', s.users.editor.password) },
        });
        expect(r.status).toBe(429);
      } finally {
        await new Promise((resolve) => other.close(resolve));
      }

      // Anonymous reads and other clients are not affected.
      expect((await s.get('/venues', { as: null, headers: me })).status).toBe(200);
      expect((await write(basic('editor', s.users.editor.password))).status).toBe(201);
    });

    it('starts counting again when the window has passed', async () => {
      const me = client();
      for (let i = 0; i < 3; i++) await write(basic('editor', `guess-${i}`), me);
      expect((await write(basic('editor', s.users.editor.password), me)).status).toBe(429);
      // The address's counter and the one of its account from the address.
      await s.db.prisma.authFailure.updateMany({
        where: { client: { startsWith: me['x-forwarded-for'] } },
        data: { windowStart: new Date(Date.now() - 61_000) },
      });
      expect((await write(basic('editor', s.users.editor.password), me)).status).toBe(201);
    });

    it('creates the bootstrap administrator once', async () => {
      expect(await bootstrapAdmin(s.db.prisma, 'root-admin', 'bootstrap-secret')).toBe(true);
      expect(await bootstrapAdmin(s.db.prisma, 'root-admin', 'other-secret')).toBe(false);
      const user = await s.db.prisma.user.findUnique({ where: { login: 'root-admin' } });
      expect(user?.role).toBe('administrator');
      expect(user?.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(user?.passwordHash).not.toContain('bootstrap-secret');
      expect((await write(basic('root-admin', 'bootstrap-secret'))).status).toBe(201);
    });
  },
  // Behind a trusted proxy, so that each test can be its own client (X-Forwarded-For).
  { env: { AUTH_MAX_FAILURES: '3', AUTH_WINDOW_SECONDS: '60', TRUST_PROXY: 'true' } },
);
