// The data version questions (src/db/data-version.ts): never shared with a request that arrived
// after the question was asked. And the answer cache's rules (src/http/answer-cache.ts): the
// version, the second of an answer that read the time, who may be answered from it.
import type { Request, Response } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DataVersions } from '../../src/db/data-version.js';
import { AnswerCache, requestTime } from '../../src/http/answer-cache.js';
import type { Rendered } from '../../src/http/reply.js';

/** A question per call of `ask`, answered when the test says. */
function questions() {
  const asked: { answer: (version: string) => void; fail: (err: Error) => void }[] = [];
  const ask = () =>
    new Promise<string>((resolve, reject) => {
      asked.push({ answer: resolve, fail: reject });
    });
  return { asked, ask };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('data version questions', () => {
  it('asks once for every request that arrived while the previous question was out', async () => {
    const { asked, ask } = questions();
    const versions = new DataVersions(ask);
    const first = versions.current();
    expect(asked).toHaveLength(1);
    // These arrive after the first question was asked: they must not take its answer.
    const second = versions.current();
    const third = versions.current();
    expect(asked).toHaveLength(1);
    asked[0].answer('1');
    expect(await first).toBe('1');
    await turn();
    expect(asked).toHaveLength(2);
    const fourth = versions.current(); // arrives while the second question is out
    asked[1].answer('2');
    expect(await second).toBe('2');
    expect(await third).toBe('2');
    await turn();
    expect(asked).toHaveLength(3);
    asked[2].answer('3');
    expect(await fourth).toBe('3');
  });

  it('asks again after a question failed, for those that waited on it', async () => {
    const { asked, ask } = questions();
    const versions = new DataVersions(ask);
    const first = versions.current();
    const second = versions.current();
    asked[0].fail(new Error('database away'));
    await expect(first).rejects.toThrow('database away');
    await turn();
    asked[1].answer('5');
    expect(await second).toBe('5');
    // Nothing out: the next request asks at once.
    const third = versions.current();
    expect(asked).toHaveLength(3);
    asked[2].answer('6');
    expect(await third).toBe('6');
  });
});

describe('answer cache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const urls = { site: 'http://localhost:3000', root: 'http://h/wp-json', base: 'http://h/wp-json/calendar/events/v1' };
  const request = (url: string, headers: Record<string, string> = {}) =>
    ({ method: 'GET', url, headers }) as unknown as Request;
  const response = () => ({ locals: {} }) as unknown as Response;
  const rendered = (body: string): Rendered => ({ status: 200, body, headers: {}, etag: '"x"' });

  function cacheAt(version: { current: string }) {
    return new AnswerCache(new DataVersions(() => Promise.resolve(version.current)), 1);
  }

  async function keep(cache: AnswerCache, req: Request, body: string, readsTime = false) {
    const lookup = await cache.lookup(req, urls);
    if (!lookup || !('keep' in lookup)) throw new Error('expected a miss');
    const res = response();
    if (readsTime) requestTime(res);
    lookup.keep({ rendered: rendered(body), embedded: 0 }, res);
  }

  const keptBody = async (cache: AnswerCache, req: Request) => {
    const lookup = await cache.lookup(req, urls);
    return lookup && 'kept' in lookup ? lookup.kept.rendered.body : undefined;
  };

  it('sends an answer again while the data version is the same, and never after it moved', async () => {
    const version = { current: '1' };
    const cache = cacheAt(version);
    await keep(cache, request('/events'), 'list');
    expect(await keptBody(cache, request('/events'))).toBe('list');
    expect(await keptBody(cache, request('/events?page=2'))).toBeUndefined();
    expect(await keptBody(cache, request('/events', { 'accept-language': 'fr' }))).toBeUndefined();
    version.current = '2';
    expect(await keptBody(cache, request('/events'))).toBeUndefined();
    // Back to a version seen before (a test database reset) is no reason to trust old answers.
    version.current = '1';
    expect(await keptBody(cache, request('/events'))).toBeUndefined();
  });

  it('keeps an answer that read the time for its second only', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T10:00:00.200Z'));
    const cache = cacheAt({ current: '1' });
    await keep(cache, request('/events'), 'from now', true);
    await keep(cache, request('/events/1'), 'one event');
    vi.setSystemTime(new Date('2030-01-01T10:00:00.900Z'));
    expect(await keptBody(cache, request('/events'))).toBe('from now');
    vi.setSystemTime(new Date('2030-01-01T10:00:01.000Z'));
    expect(await keptBody(cache, request('/events'))).toBeUndefined();
    expect(await keptBody(cache, request('/events/1'))).toBe('one event');
  });

  it('gives services the time of the request to the second, the same in every part of one answer', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T10:00:00.750Z'));
    const res = response();
    const first = requestTime(res);
    vi.setSystemTime(new Date('2030-01-01T10:00:02.100Z'));
    expect(first.toISOString()).toBe('2030-01-01T10:00:00.000Z');
    expect(requestTime(res)).toBe(first);
  });

  it('answers only reads without credentials nor If-Match, and keeps only what succeeded', async () => {
    const cache = cacheAt({ current: '1' });
    expect(await cache.lookup(request('/events', { authorization: 'Bearer x' }), urls)).toBeUndefined();
    expect(await cache.lookup(request('/events', { 'if-match': '*' }), urls)).toBeUndefined();
    expect(
      await cache.lookup({ method: 'POST', url: '/events', headers: {} } as unknown as Request, urls),
    ).toBeUndefined();
    const lookup = await cache.lookup(request('/nothing'), urls);
    if (!lookup || !('keep' in lookup)) throw new Error('expected a miss');
    lookup.keep({ rendered: { status: 404, body: 'no', headers: {} }, embedded: 0 }, response());
    expect(await keptBody(cache, request('/nothing'))).toBeUndefined();
  });

  it('keeps nothing for a version that moved while the answer was built', async () => {
    const version = { current: '1' };
    const cache = cacheAt(version);
    const lookup = await cache.lookup(request('/events'), urls);
    if (!lookup || !('keep' in lookup)) throw new Error('expected a miss');
    version.current = '2';
    expect(await keptBody(cache, request('/venues'))).toBeUndefined(); // sees version 2
    lookup.keep({ rendered: rendered('old'), embedded: 0 }, response());
    expect(await keptBody(cache, request('/events'))).toBeUndefined();
  });

  it('gives requests that arrive while an answer is built that answer, and a failed build none', async () => {
    const cache = cacheAt({ current: '1' });
    const building = await cache.lookup(request('/events'), urls);
    if (!building || !('keep' in building)) throw new Error('expected a miss');
    const waiting = keptBody(cache, request('/events'));
    building.keep({ rendered: rendered('built once'), embedded: 0 }, response());
    expect(await waiting).toBe('built once');

    const failing = await cache.lookup(request('/venues'), urls);
    if (!failing || !('abandon' in failing)) throw new Error('expected a miss');
    const next = cache.lookup(request('/venues'), urls);
    failing.abandon();
    const own = await next;
    expect(own && 'keep' in own).toBe(true);
  });
});
