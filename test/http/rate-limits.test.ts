// Rate limits (src/http/rate-limits.ts): per client address when signed out, per user when signed
// in, by class; the IETF RateLimit fields on every answer; 429 with Retry-After once spent; counts
// shared by instances of one PostgreSQL database, or of one Redis; exact under parallel requests.
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config/read.js';
import { SYNC_MS } from '../../src/http/batched-counts.js';
import { rateLimited } from '../../src/metrics/registry.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { startServer, type TestServer } from '../setup/server.js';

const LIMITS = {
  RATE_LIMIT_READS: '5',
  RATE_LIMIT_WRITES: '3',
  RATE_LIMIT_SIGN_INS: '2',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  TRUST_PROXY: 'true',
};

// Addresses of a run of their own: counters in Redis outlive a run by up to a window.
const run = `${randomInt(256)}.${randomInt(256)}`;
let clients = 0;
const client = () => ({ 'x-forwarded-for': `10.${run}.${++clients % 256}` });
/** rate_limit_rejections_total of a class, as /metrics reports it. */
const refusals = async (limitClass: string) =>
  (await rateLimited.get()).values.find((v) => v.labels.class === limitClass)?.value ?? 0;
const basic = (login: string, secret: string) => `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;

/** Another instance of the service on the same database (and the same Redis, if any), by default with LIMITS. */
async function secondInstance(
  db: Parameters<typeof createApp>[0]['db'],
  env: Record<string, string>,
  limits: Record<string, string> = LIMITS,
) {
  const app = createApp({ config: { ...loadConfig({ ...limits, ...env }), port: 0 }, db });
  await app.ready();
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/calendar/events/v1`;
  return {
    get: (path: string, headers: Record<string, string>) => fetch(`${base}${path}`, { headers }),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}

/** Requests of one client one after another, `gapMs` apart, as a loaded machine lets a burst in: their statuses. */
async function spaced(send: () => Promise<{ status: number }>, count: number, gapMs: number) {
  const answers: Promise<{ status: number }>[] = [];
  for (let i = 0; i < count; i++) {
    answers.push(send());
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return (await Promise.all(answers)).map((r) => r.status);
}

describeEachDatabase(
  'rate limits',
  (s, kind) => {
    it('gives each client address its reads, says where it stands, then answers 429 with Retry-After', async () => {
      const me = client();
      for (let left = 4; left >= 0; left--) {
        const r = await s.get('/venues', { as: null, headers: me });
        expect(r.status).toBe(200);
        expect(r.headers.get('ratelimit-policy')).toBe('"reads";q=5;w=60');
        expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^"reads";r=${left};t=([1-9]|[1-5][0-9]|60)$`));
      }
      const before = await refusals('reads');
      const refused = await s.get('/venues', { as: null, headers: me });
      expect(refused.status).toBe(429);
      expect(await refusals('reads')).toBe(before + 1);
      expect(refused.body).toMatchObject({ code: 'rest_rate_limited', data: { status: 429, policy: 'reads' } });
      const retry = Number(refused.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(refused.headers.get('ratelimit')).toBe(`"reads";r=0;t=${retry}`);
      expect(refused.headers.get('ratelimit-policy')).toBe('"reads";q=5;w=60');
      // Another address, and writes, are counted apart.
      expect((await s.get('/venues', { as: null, headers: client() })).status).toBe(200);
    });

    it('counts a signed-in user wherever the requests come from, and each class apart', async () => {
      for (let i = 0; i < 3; i++) {
        const r = await s.post('/tags', { name: `Limited ${kind} ${run} ${i}` }, { as: 'editor', headers: client() });
        expect(r.status).toBe(201);
        // The first also checked the editor's credentials afresh: a sign-in.
        expect(r.headers.get('ratelimit-policy')).toMatch(/(^|, )"writes";q=3;w=60$/);
      }
      const refused = await s.post('/tags', { name: `Limited ${kind} ${run} 3` }, { as: 'editor', headers: client() });
      expect(refused.status).toBe(429);
      expect(refused.body.data.policy).toBe('writes');
      // Nothing was written by the refused request.
      const stored = await s.db.prisma.term.findMany({ where: { name: { startsWith: `Limited ${kind} ${run} ` } } });
      expect(stored).toHaveLength(3);
      // The same user's reads, and another user's writes, still go through.
      expect((await s.get('/tags', { as: 'editor', headers: client() })).status).toBe(200);
      expect((await s.post('/tags', { name: `Other ${kind} ${run}` }, { as: 'administrator' })).status).toBe(201);
    });

    it('limits checks of new credentials per address, before the password hash is computed', async () => {
      const me = client();
      for (let i = 0; i < 2; i++) {
        const r = await s.get('/venues', {
          as: null,
          headers: { ...me, authorization: basic('editor', `guess-${i}`) },
        });
        expect(r.status).toBe(401);
        expect(r.headers.get('ratelimit-policy')).toBe('"sign-in";q=2;w=60');
      }
      const refused = await s.get('/venues', {
        as: null,
        headers: { ...me, authorization: basic('editor', 'guess-2') },
      });
      expect(refused.status).toBe(429);
      expect(refused.body.data.policy).toBe('sign-in');
      // Right credentials already proven are no sign-in: they pass from that address too.
      expect((await s.get('/venues', { as: 'editor', headers: client() })).status).toBe(200);
      expect((await s.get('/venues', { as: 'editor', headers: me })).status).toBe(200);
    });

    it('counts the same new credentials sent in parallel as one sign-in', async () => {
      const login = `burst-${kind}-${run}`;
      await createUser(s.db.prisma, { login, password: 'a long password', role: 'author' });
      const { password } = await issueAppPassword(s.db.prisma, login, 'burst');
      const me = client();
      // An app's first burst: five requests at once with a password this instance has not seen yet.
      const burst = await Promise.all(
        Array.from({ length: 5 }, () =>
          s.get('/venues', { as: null, headers: { ...me, authorization: `Bearer ${password}` } }),
        ),
      );
      expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      // One sign-in of the two is spent: one more new guess is checked, the next is refused.
      const guess = (secret: string) =>
        s.get('/venues', { as: null, headers: { ...me, authorization: basic(login, secret) } });
      expect((await guess('first guess')).status).toBe(401);
      expect((await guess('second guess')).status).toBe(429);
    });

    it('counts each link a request embeds as a read, and an IPv6 client by its /64', async () => {
      const venue = (await s.post('/venues', { venue: `Embedded ${kind} ${run}` }, { headers: client() })).body;
      const event = await s.post(
        '/events',
        {
          title: 'Embeds',
          start_date: '2031-01-01 10:00',
          end_date: '2031-01-01 11:00',
          venue: venue.id,
          status: 'publish',
        },
        { headers: client() },
      );
      const me = client();
      const r = await s.get(`/events/${event.body.id}?_embed=venue`, { as: null, headers: me });
      expect(r.status).toBe(200);
      expect(r.body._embedded.venue).toHaveLength(1);
      expect(r.headers.get('ratelimit-policy')).toBe('"reads";q=5;w=60');
      // The request and the one link it followed.
      expect(r.headers.get('ratelimit')).toMatch(/^"reads";r=3;t=\d+$/);
      // Three left: everything embedded (the venue, the terms, ...) is more than that, and refused whole.
      const all = await s.get(`/events/${event.body.id}?_embed`, { as: null, headers: me });
      expect([all.status, all.body.code, all.body.data?.policy]).toEqual([429, 'rest_rate_limited', 'reads']);

      const host = `2001:db8:${randomInt(65536).toString(16)}:${randomInt(65536).toString(16)}`;
      for (let i = 1; i <= 5; i++) {
        const v6 = { 'x-forwarded-for': `${host}::${i}` };
        expect((await s.get('/venues', { as: null, headers: v6 })).status).toBe(200);
      }
      expect((await s.get('/venues', { as: null, headers: { 'x-forwarded-for': `${host}::ffff` } })).status).toBe(429);
    });

    it('counts OPTIONS, the REST root, the site root and the public pages as reads', async () => {
      const me = client();
      const origin = s.origin;
      const answers = [
        await fetch(`${s.base}/events`, { method: 'OPTIONS', headers: me }),
        await fetch(`${origin}/wp-json/`, { headers: me }),
        await fetch(`${origin}/`, { headers: me }),
        await fetch(`${origin}/event/no-such-event/`, { headers: me }),
        await fetch(`${origin}/venue/no-such-venue/`, { headers: me }),
      ];
      expect(answers.map((a) => a.headers.get('ratelimit')?.replace(/;t=\d+$/, ''))).toEqual([
        '"reads";r=4',
        '"reads";r=3',
        '"reads";r=2',
        '"reads";r=1',
        '"reads";r=0',
      ]);
      expect((await fetch(`${origin}/wp-json/`, { headers: me })).status).toBe(429);
    });

    it('lets exactly the allowance through when the requests come all at once', async () => {
      const me = client();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => s.get('/categories', { as: null, headers: me })),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    });

    it('lets exactly the allowance through when the requests keep coming for longer than SYNC_MS', async () => {
      // Each SYNC_MS the instance asks the store again; once the key is over, the store refuses from
      // its own memory (inMemoryBlockOnConsumed) with no count, which must not read as a count of 0.
      const me = client();
      const statuses = await spaced(() => s.get('/categories', { as: null, headers: me }), 20, SYNC_MS / 3);
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    });

    if (kind === 'postgresql') {
      it('shares the counts with every instance on the same database, each within SYNC_MS', async () => {
        const me = client();
        const other = await secondInstance(s.db, {});
        // An instance hears of the others' counts at most SYNC_MS late (http/batched-counts.ts).
        const aLittleLater = () => new Promise((resolve) => setTimeout(resolve, 2 * SYNC_MS));
        try {
          for (let i = 0; i < 3; i++) expect((await s.get('/venues', { as: null, headers: me })).status).toBe(200);
          await aLittleLater();
          expect((await other.get('/venues', me)).status).toBe(200);
          expect((await other.get('/venues', me)).status).toBe(200);
          expect((await other.get('/venues', me)).status).toBe(429);
          await aLittleLater();
          expect((await s.get('/venues', { as: null, headers: me })).status).toBe(429);
          await aLittleLater();
          const rows = await s.db.prisma.rateLimit.findMany({
            where: { key: `reads:client:${me['x-forwarded-for']}` },
          });
          expect(rows.map((row) => row.points)).toEqual([7]);
        } finally {
          await other.close();
        }
      });

      it('counts on each instance alone with RATE_LIMIT_STORE=memory, nothing in the database', async () => {
        const me = client();
        const [one, two] = [
          await secondInstance(s.db, { RATE_LIMIT_STORE: 'memory' }),
          await secondInstance(s.db, { RATE_LIMIT_STORE: 'memory' }),
        ];
        try {
          for (let i = 0; i < 5; i++) expect((await one.get('/venues', me)).status).toBe(200);
          expect((await one.get('/venues', me)).status).toBe(429);
          expect((await two.get('/venues', me)).status).toBe(200);
          const key = `reads:client:${me['x-forwarded-for']}`;
          expect(await s.db.prisma.rateLimit.count({ where: { key } })).toBe(0);
        } finally {
          await one.close();
          await two.close();
        }
      });
    }
  },
  { env: LIMITS },
);

describeEachDatabase(
  'rate limits turned off',
  (s) => {
    it('counts nothing and sends no RateLimit fields for a class set to 0', async () => {
      const me = client();
      for (let i = 0; i < 8; i++) {
        const r = await s.get('/venues', { as: null, headers: me });
        expect(r.status).toBe(200);
        expect(r.headers.get('ratelimit')).toBeNull();
      }
    });
  },
  { env: { ...LIMITS, RATE_LIMIT_READS: '0' }, kinds: ['pglite'] },
);

describeEachDatabase(
  'rate limit exemptions',
  (s) => {
    it('counts sign-ins only by default: reads and writes are off until an operator sets them', async () => {
      const defaults = await secondInstance(s.db, { TRUST_PROXY: 'true' }, {});
      try {
        const me = client();
        for (let i = 0; i < 40; i++) {
          const read = await defaults.get('/venues', me);
          expect(read.status).toBe(200);
          expect(read.headers.get('ratelimit')).toBeNull();
        }
        const signIn = await defaults.get('/venues', { ...me, authorization: basic('nobody', 'wrong password') });
        expect(signIn.headers.get('ratelimit-policy')).toBe('"sign-in";q=30;w=60');
      } finally {
        await defaults.close();
      }
    });

    it('refuses to start on an exempt range or a store it cannot read', () => {
      for (const env of [
        { RATE_LIMIT_EXEMPT_ADDRESSES: '10.0.0.0/33' },
        { RATE_LIMIT_EXEMPT_ADDRESSES: '10.0.0.0/8,example.org' },
        { RATE_LIMIT_EXEMPT_ADDRESSES: '2001:db8::/129' },
        { RATE_LIMIT_STORE: 'disk' },
      ])
        expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(loadConfig({ RATE_LIMIT_EXEMPT_ADDRESSES: ' 10.0.0.0/8 , ::1 ' }).rateLimits.exemptAddresses).toEqual([
        '10.0.0.0/8',
        '::1',
      ]);
    });

    const EXEMPT = ['10.200.7.1', '2001:db8:5::1', '::ffff:10.200.9.9', '10.99.0.1'];
    it('never counts reads or writes from an exempt address or range, IPv4 mapped into IPv6 included', async () => {
      for (const address of EXEMPT) {
        const me = { 'x-forwarded-for': address };
        for (let i = 0; i < 8; i++) {
          const r = await s.get('/venues', { as: null, headers: me });
          expect(r.status, address).toBe(200);
          expect(r.headers.get('ratelimit')).toBeNull();
        }
        // Anonymous writes are refused for want of an account, never for want of allowance.
        for (let i = 0; i < 5; i++)
          expect((await s.post('/tags', { name: 'x' }, { as: null, headers: me })).status).toBe(401);
      }
      const outside = { 'x-forwarded-for': '10.201.7.1' };
      for (let i = 0; i < 5; i++) expect((await s.get('/venues', { as: null, headers: outside })).status).toBe(200);
      expect((await s.get('/venues', { as: null, headers: outside })).status).toBe(429);
    });

    it('still counts sign-ins from an exempt address: each costs a password hash', async () => {
      const me = { 'x-forwarded-for': '10.200.8.1', authorization: basic('nobody', 'wrong password') };
      const first = await s.get('/venues', { as: null, headers: me });
      expect(first.headers.get('ratelimit-policy')).toBe('"sign-in";q=2;w=60');
    });

    it('never counts an account marked exempt, from any address, and counts it again once unmarked', async () => {
      const { editor, author } = s.users;
      const mark = (exempt: boolean) =>
        s.db.prisma.user.update({ where: { id: editor.id }, data: { rateLimitExempt: exempt } });
      await mark(true);
      const me = client();
      for (let i = 0; i < 8; i++) {
        const read = await s.get('/venues', { as: 'editor', headers: me });
        expect(read.status).toBe(200);
        // Its first request proves new credentials, a sign-in, which counts as ever.
        expect(read.headers.get('ratelimit-policy') ?? '').not.toContain('"reads"');
      }
      for (let i = 0; i < 5; i++)
        expect((await s.post('/tags', { name: `exempt ${i}` }, { as: 'editor', headers: me })).status).toBe(201);
      // Another account at the same address is counted as ever.
      for (let i = 0; i < 5; i++) expect((await s.get('/venues', { as: 'author', headers: me })).status).toBe(200);
      expect((await s.get('/venues', { as: 'author', headers: me })).status).toBe(429);
      expect(editor.id).not.toBe(author.id);

      await mark(false);
      const counted = await s.get('/venues', { as: 'editor', headers: me });
      expect(counted.headers.get('ratelimit')).toMatch(/^"reads";r=4;/);
    });
  },
  { env: { ...LIMITS, RATE_LIMIT_EXEMPT_ADDRESSES: '10.200.0.0/16, 2001:db8::/32,10.99.0.1' } },
);

// Redis: the store for many instances when REDIS_URL is set. CI starts a Redis server (.ci/run).
const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl && process.env.CI) throw new Error('TEST_REDIS_URL must name a Redis server in CI');
describe.skipIf(!redisUrl)(
  `rate limits on Redis${redisUrl ? '' : ' [skipped: needs Redis: set TEST_REDIS_URL]'}`,
  () => {
    const env = { REDIS_URL: redisUrl ?? '' };
    let started: Promise<TestServer> | undefined;
    beforeAll(() => {
      started = startServer('pglite', { ...LIMITS, ...env });
    });
    afterAll(async () => {
      await (await started)?.close();
    });
    const server = async () => {
      if (!started) throw new Error('started in beforeAll');
      return started;
    };

    it('shares the counts with every instance on the same Redis, each within SYNC_MS', async () => {
      const s = await server();
      const me = client();
      const other = await secondInstance(s.db, env);
      const aLittleLater = () => new Promise((resolve) => setTimeout(resolve, 2 * SYNC_MS));
      try {
        for (let i = 0; i < 3; i++) expect((await s.get('/venues', { as: null, headers: me })).status).toBe(200);
        await aLittleLater();
        expect((await other.get('/venues', me)).status).toBe(200);
        expect((await other.get('/venues', me)).status).toBe(200);
        const refused = await other.get('/venues', me);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        await aLittleLater();
        expect((await s.get('/venues', { as: null, headers: me })).status).toBe(429);
      } finally {
        await other.close();
      }
    });

    it('lets exactly the allowance through when the requests come all at once', async () => {
      const s = await server();
      const me = client();
      const answers = await Promise.all(Array.from({ length: 20 }, () => s.get('/tags', { as: null, headers: me })));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    });

    it('lets exactly the allowance through when the requests keep coming for longer than SYNC_MS', async () => {
      const s = await server();
      const me = client();
      const statuses = await spaced(() => s.get('/tags', { as: null, headers: me }), 20, SYNC_MS / 3);
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    });
  },
);
