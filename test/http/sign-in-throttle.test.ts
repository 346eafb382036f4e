// The sign-in throttle under parallel guessing, behind a proxy that clients try to fool, and the
// TRUST_PROXY forms it accepts. On both databases: the count lives there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAppPassword } from '../../src/auth/accounts.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config/read.js';
import { startServer, type TestServer } from '../setup/server.js';
import { describeEachDatabase } from '../setup/each-database.js';

const MAX_FAILURES = 10;
const ADDRESS_FAILURES = 25;
const basic = (login: string, secret: string) => `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;

describeEachDatabase(
  'the sign-in throttle',
  (s, dbKind) => {
    let clients = 0;
    const client = () => `10.9.${dbKind === 'pglite' ? 1 : 2}.${++clients}`;
    const read = (authorization: string, forwardedFor: string) =>
      fetch(`${s.base}/venues`, { headers: { authorization, 'x-forwarded-for': forwardedFor } });

    it('checks no more than the allowed number of 300 parallel wrong passwords', async () => {
      const me = client();
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) => read(basic('editor', i % 2 ? 'the same guess' : `guess ${i}`), me)),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(MAX_FAILURES);
      expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
      // Locked out, right password included.
      expect((await read(basic('editor', s.users.editor.password), me)).status).toBe(429);
    });

    it('locks one account out of an address, not the other accounts there, nor that account elsewhere', async () => {
      const office = client();
      for (let i = 0; i < MAX_FAILURES; i++)
        expect((await read(basic('author', `guess ${i}`), office)).status).toBe(401);
      expect((await read(basic('author', s.users.author.password), office)).status).toBe(429);
      // Colleagues behind the same address sign in, with passwords and application passwords.
      expect((await read(basic('editor', s.users.editor.password), office)).status).toBe(200);
      expect((await read(`Bearer ${s.users.contributor.appPassword}`, office)).status).toBe(200);
      // The account itself, from home.
      expect((await read(basic('author', s.users.author.password), client())).status).toBe(200);
    });

    it('stops one address trying many accounts, yet lets in those that signed in from it before', async () => {
      const exit = client();
      // The subscriber signed in from there earlier.
      expect((await read(basic('subscriber', s.users.subscriber.password), exit)).status).toBe(200);
      const guesses = await Promise.all(
        Array.from({ length: ADDRESS_FAILURES + 10 }, (_, i) => read(basic(`nobody-${i}`, 'password1'), exit)),
      );
      const statuses = guesses.map((g) => g.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(ADDRESS_FAILURES);
      expect(statuses.filter((status) => status === 429)).toHaveLength(10);
      // Credentials new to this instance, of an account that never signed in from there: a guess as any.
      const fresh = await issueAppPassword(s.db.prisma, 'editor', `never from there ${dbKind}`);
      expect((await read(`Bearer ${fresh.password}`, exit)).status).toBe(429);
      // Proven right lately here, they are held to their own account's count only.
      expect((await read(basic('editor', s.users.editor.password), exit)).status).toBe(200);
      expect((await read(basic('subscriber', s.users.subscriber.password), exit)).status).toBe(200);
    });

    it('holds an application password proven right to the count of its own pair, read with it', async () => {
      const me = client();
      const issued = await issueAppPassword(s.db.prisma, 'author', `known good ${dbKind}`);
      expect((await read(`Bearer ${issued.password}`, me)).status).toBe(200);
      // Guesses at the rest of it (the same public part) from the same address spend its pair.
      const lookup = issued.password.slice(0, 8);
      for (let i = 0; i < MAX_FAILURES; i++) {
        const guess = `${lookup}${'x'.repeat(23)}${'abcdefghjkmnpqr'[i]}`;
        expect((await read(`Bearer ${guess}`, me)).status).toBe(401);
      }
      const throttled = await read(`Bearer ${issued.password}`, me);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      // Not elsewhere, and a wrong password is still wrong.
      expect((await read(`Bearer ${issued.password}`, client())).status).toBe(200);
      expect((await read(`Bearer ${lookup}${'y'.repeat(24)}`, client())).status).toBe(401);
    });

    it('does not throttle a burst of parallel requests with new, right credentials', async () => {
      const me = client();
      const issued = await issueAppPassword(s.db.prisma, 'author', `burst ${dbKind}`);
      const answers = await Promise.all(Array.from({ length: 30 }, () => read(`Bearer ${issued.password}`, me)));
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
      const row = await s.db.prisma.authFailure.findUnique({ where: { client: me } });
      expect(row?.failures ?? 0).toBe(0);
    });

    it('keys the throttle on the address the trusted proxy saw, not on what the client wrote', async () => {
      // With one proxy in front, the client's address is the last X-Forwarded-For entry (here the
      // one "the proxy" added); the entries before it are the client's own words.
      const proxySaw = client();
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++)
        statuses.push((await read(basic('editor', `guess ${i}`), `10.0.0.${i}, ${proxySaw}`)).status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(MAX_FAILURES);
      expect(statuses.slice(MAX_FAILURES).every((status) => status === 429)).toBe(true);
    });

    it('answers 401 for a login with a NUL byte, and counts it as a failure', async () => {
      const me = client();
      const r = await read(basic('edi\0tor', 'whatever'), me);
      expect(r.status).toBe(401);
      expect(((await r.json()) as { code: string }).code).toBe('rest_invalid_credentials');
      expect((await read(basic('x'.repeat(500), 'whatever'), me)).status).toBe(401);
      expect((await s.db.prisma.authFailure.findUnique({ where: { client: me } }))?.failures).toBe(2);
    });
  },
  {
    env: {
      AUTH_MAX_FAILURES: String(MAX_FAILURES),
      AUTH_MAX_FAILURES_PER_ADDRESS: String(ADDRESS_FAILURES),
      AUTH_WINDOW_SECONDS: '60',
      TRUST_PROXY: '1',
    },
  },
);

describe('forwarded headers', () => {
  let s: TestServer;
  beforeAll(async () => {
    // The proxy is somewhere else: requests from loopback come straight from clients.
    s = await startServer('pglite', { TRUST_PROXY: '10.1.2.3,192.168.0.0/16' });
  });
  afterAll(() => s?.close());

  it('are ignored from a peer that is not a trusted proxy', async () => {
    const r = await fetch(`${s.base}/doc`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(((await r.json()) as { servers: { url: string }[] }).servers[0].url).toBe(s.base);
  });
});

describe('TRUST_PROXY', () => {
  const trust = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).trustProxy;
  it.each([
    [undefined, false],
    ['', false],
    ['off', false],
    ['0', false],
    ['1', 1],
    ['true', 1],
    ['yes', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.1, 10.1.0.0/16,::1,fd00::/8', ['10.0.0.1', '10.1.0.0/16', '::1', 'fd00::/8']],
  ])('reads %j as %j', (value, expected) => {
    expect(trust(value)).toEqual(expected);
  });

  it.each(['everything', '10.0.0.0/33', '10.0.0', '*', '1000', '10.0.0.1/8/2'])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() => trust(value)).toThrow(ConfigError);
      expect(() => trust(value)).toThrow(/TRUST_PROXY/);
    },
  );
});
