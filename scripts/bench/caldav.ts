// What a phone's calendar costs the service (docs/caldav.md): a full initial sync of the whole
// calendar (sync-collection without a token, each event's ETag), an incremental one after ten
// events changed through the API, and the multiget that fetches those ten. Each is timed one
// request at a time, as a client asks, and the median and slowest of several runs are printed.
import { performance } from 'node:perf_hooks';
import { CALDAV_SIZES, compareWithRadicale } from './radicale.js';

const COLLECTION = '/caldav/calendars/events/';
const API = '/wp-json/calendar/events/v1';

const syncBody = (token: string) =>
  `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;

/**
 * The slowest answer to a cheap request (OPTIONS, no database) sent every 10 ms while `work` runs:
 * how long the work held the event loop, as any other request would see it.
 */
async function slowestPing(url: string, work: () => Promise<unknown>): Promise<number> {
  const state = { done: false };
  let slowest = 0;
  const pinging = (async () => {
    while (!state.done) {
      const started = performance.now();
      await (await fetch(`${url}/caldav/`, { method: 'OPTIONS' })).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  await work();
  state.done = true;
  await pinging;
  return slowest;
}

interface Timing {
  medianMs: number;
  maxMs: number;
  responses: number;
  bytes: number;
}

export async function measureCalDav(
  url: string,
  bearer: string,
  eventIds: number[],
  label: string,
  report: (line: string) => void,
): Promise<void> {
  // CalDAV signs in with HTTP Basic: the login and its application password.
  const auth = `Basic ${Buffer.from(`bench:${bearer}`).toString('base64')}`;
  const ask = (url: string, body: string, depth = '1') =>
    fetch(url, {
      method: 'REPORT',
      headers: { authorization: auth, depth, 'content-type': 'application/xml' },
      body,
    });
  const timed = async (runs: number, send: () => Promise<Response>): Promise<Timing> => {
    const times: number[] = [];
    let last = { responses: 0, bytes: 0 };
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const answer = await send();
      const text = await answer.text();
      times.push(performance.now() - started);
      if (answer.status !== 207) throw new Error(`CalDAV answered ${answer.status}: ${text.slice(0, 300)}`);
      last = { responses: text.split('<d:response>').length - 1, bytes: Buffer.byteLength(text) };
    }
    times.sort((a, b) => a - b);
    return { medianMs: times[Math.floor(times.length / 2)], maxMs: times[times.length - 1], ...last };
  };
  const line = (name: string, t: Timing) => {
    report(
      `${label.padEnd(28)} ${name.padEnd(44)} median ${t.medianMs.toFixed(1).padStart(7)} ms, slowest ${t.maxMs.toFixed(1).padStart(7)} ms, ${t.responses} resources, ${(t.bytes / 1024).toFixed(0)} KiB`,
    );
  };

  const full = await timed(3, () => ask(`${url}${COLLECTION}`, syncBody('')));
  line('full initial sync (sync-collection, ETags)', full);
  const held = await slowestPing(url, () => ask(`${url}${COLLECTION}`, syncBody('')).then((a) => a.text()));
  report(`${label.padEnd(28)} ${'OPTIONS answered meanwhile, slowest'.padEnd(44)} ${held.toFixed(1).padStart(7)} ms`);

  const first = await (await ask(`${url}${COLLECTION}`, syncBody(''))).text();
  const token = /<d:sync-token>(.*?)<\/d:sync-token>/.exec(first)?.[1] ?? '';
  const changed = eventIds.slice(0, 10);
  for (const id of changed) {
    const answer = await fetch(`${url}${API}/events/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ excerpt: `Changed for the CalDAV benchmark at ${Date.now()}` }),
    });
    if (answer.status !== 200) throw new Error(`The API answered ${answer.status} to a change`);
  }
  // The feed gives a change once no older transaction is still running: a moment after it commits.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const incremental = await timed(21, () => ask(`${url}${COLLECTION}`, syncBody(token)));
  line('incremental sync, 10 changes', incremental);
  if (incremental.responses < changed.length)
    throw new Error(`The incremental sync gave ${incremental.responses} of ${changed.length} changes`);

  const hrefs = changed.map((id) => `<d:href>${COLLECTION}${id}.ics</d:href>`).join('');
  const multiget = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs}</c:calendar-multiget>`;
  line('multiget of the 10 changed', await timed(21, () => ask(`${url}${COLLECTION}`, multiget)));
}

/**
 * The caldav part: the service on PostgreSQL beside Radicale on calendars of BENCH_CALDAV_SIZES
 * events (scripts/bench/radicale.ts). The syncs above are the postgresql and pglite parts'.
 */
export async function caldavPart() {
  for (const events of CALDAV_SIZES) await compareWithRadicale(events);
}
