// The postgresql and recurring parts. PostgreSQL, 10,000 events: the baseline (node:http and pg,
// scripts/bench/baseline.ts) and the service on the same database, each read scenario run on the
// baseline, then on the service anonymously (kept answers, in the first round only) and signed in
// (built answers), ROUNDS times over, so that all meet the same passing load on a shared machine;
// each keeps its best round. Then creation on both, taking turns as well, and media and CalDAV on the service; or, for
// the recurring part, the same on a calendar where a fifth of the events are occurrences of series.
import sharp from 'sharp';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { openDatabase } from '../../src/db/client.js';
import { STANDARD } from './calendar.js';
import { measureCalDav } from './caldav.js';
import { best, type Print } from './figures.js';
import { createPostgres, type Fixtures, seed } from './fixtures.js';
import { type Figures, measure, type Scenario, type Server, startServer } from './load.js';
import { READS, scenarios, signedIn } from './scenarios.js';
import { startService } from './service.js';
import { API, CONNECTIONS, NOW, ROUNDS, SECONDS } from './settings.js';

/**
 * The reads on PostgreSQL, the service and the baseline taking turns. `withSeries` first replaces a
 * fifth of the calendar by occurrences of recurring series written through the API, and times the
 * write of series of 500 occurrences.
 */
export async function comparePostgres(print: Print, withSeries = false) {
  const standard = await createPostgres(withSeries ? 'recurring' : 'standard');
  const size = withSeries ? { ...STANDARD, events: STANDARD.events * 0.8 } : STANDARD;
  const label = withSeries ? 'service, a fifth occurrences' : 'service on PostgreSQL';
  try {
    const fixtures = await seed({ kind: 'postgresql', url: standard.url }, size);
    const all = scenarios(fixtures);
    const baseline = await startServer(
      ['--import', 'tsx', 'scripts/bench/baseline.ts'],
      { DATABASE_URL: standard.url },
      `${API}/events/${fixtures.eventIds[0]}`,
    );
    try {
      const service = await startService({ kind: 'postgresql', url: standard.url });
      try {
        if (withSeries) await addSeries(service, standard.url, fixtures);
        // Each read three ways: the baseline, the service to an anonymous caller (an answer kept
        // since the data last changed, once built) and to a signed-in one (built every time). Kept
        // answers run in the first round only: at several times the baseline, the best of two rounds
        // would change no conclusion, and the run they save keeps the default run under ten minutes.
        const results = [];
        for (const name of READS) {
          const reader = signedIn(all[name], fixtures.reader);
          const runs = { baseline: [] as Figures[], kept: [] as Figures[], built: [] as Figures[] };
          for (let round = 0; round < ROUNDS; round++) {
            // Warmed up in the first round only: the warm-up of a later one was a tenth of the run.
            const warm = round > 0;
            runs.baseline.push(await measure(baseline, all[name], SECONDS, CONNECTIONS, warm));
            if (round === 0) runs.kept.push(await measure(service, all[name], SECONDS, CONNECTIONS));
            runs.built.push(await measure(service, reader, SECONDS, CONNECTIONS, warm));
          }
          results.push({ name, baseline: best(runs.baseline), kept: best(runs.kept), built: best(runs.built) });
        }
        for (const { name, baseline } of results) print('baseline (node:http + pg)', name, baseline);
        for (const { name, baseline, kept } of results)
          print(`${label}, anonymous`, name, kept, kept.requestsPerSecond / baseline.requestsPerSecond);
        for (const { name, baseline, built } of results)
          print(`${label}, signed in`, name, built, built.requestsPerSecond / baseline.requestsPerSecond);
        if (!withSeries) await measureMedia(service, fixtures, label, print);
        if (!withSeries) await measureCalDav(service.url, fixtures.bearer, fixtures.eventIds, label, console.log);
        // Creation last, the bare create (baseline.ts) and the service's taking turns as the reads do:
        // the thousands of events it writes would otherwise be in the calendar CalDAV syncs.
        const creates = { baseline: [] as Figures[], service: [] as Figures[] };
        for (let round = 0; round < ROUNDS; round++) {
          creates.baseline.push(await measure(baseline, all['event creation'], SECONDS, CONNECTIONS, round > 0));
          creates.service.push(await measure(service, all['event creation'], SECONDS, CONNECTIONS, round > 0));
        }
        const [bareCreate, serviceCreate] = [best(creates.baseline), best(creates.service)];
        print('baseline (node:http + pg)', 'event creation', bareCreate);
        print(label, 'event creation', serviceCreate, serviceCreate.requestsPerSecond / bareCreate.requestsPerSecond);
      } finally {
        await service.stop();
      }
    } finally {
      await baseline.stop();
    }
  } finally {
    await standard.drop();
  }
}

/**
 * The media library: uploads of a 1600×1200 JPEG of a photo's size (300 KB of fine noise; each
 * upload makes the full size and four smaller ones), then reads of one of their sizes (`medium`,
 * from /uploads/, as a page's <img> asks for it).
 */
async function measureMedia(service: Server, fixtures: Fixtures, label: string, print: Print) {
  const image = await sharp({
    create: {
      width: 1600,
      height: 1200,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 8 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
  const upload: Scenario = {
    name: 'image upload',
    method: 'POST',
    path: () => `${API}/media`,
    headers: {
      authorization: `Bearer ${fixtures.bearer}`,
      'content-type': 'image/jpeg',
      'content-disposition': 'attachment; filename="bench-photo.jpg"',
    },
    body: () => image,
    expect: 201,
  };
  // Four at a time: an instance makes two images at once and lets six wait (media/images.ts); more
  // uploads at once are answered 429 before their bodies are read, which is not what is measured.
  print(label, 'image upload (1600×1200 JPEG, 4 at a time)', await measure(service, upload, SECONDS, 4));
  const list = (await (await fetch(`${service.url}${API}/media?per_page=1`)).json()) as {
    media: { sizes: { medium: { url: string } } }[];
  };
  const medium = new URL(list.media[0].sizes.medium.url).pathname;
  const read: Scenario = { name: 'sized image', path: () => medium, expect: 200 };
  print(label, 'sized image (medium, 300×225)', await measure(service, read, SECONDS, CONNECTIONS));
}

/** Adds the series (writeSeries) as an administrator, then vacuums and analyses the calendar. */
async function addSeries(service: Server, url: string, fixtures: Fixtures) {
  const db = await openDatabase({ databaseUrl: url, dataDir: '' });
  try {
    await createUser(db.prisma, { login: 'bench-admin', password: 'bench-password', role: 'administrator' });
    const bearer = (await issueAppPassword(db.prisma, 'bench-admin', 'benchmark')).password;
    await writeSeries(service, bearer, fixtures);
    // As after seeding (seed below): the reads are measured on a vacuumed, analysed calendar.
    await db.withConnection((sql) => sql.exec('VACUUM ANALYZE'));
  } finally {
    await db.close();
  }
}

/**
 * 2,000 occurrences as 20 weekly series of 100 (each at a venue and in a category of the calendar,
 * starting this week), written through the API; then the write of a daily series of 500
 * occurrences, timed five times.
 */
async function writeSeries(service: Server, bearer: string, fixtures: Fixtures) {
  const post = async (body: object) => {
    const r = await fetch(`${service.url}${API}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status !== 201) throw new Error(`series creation: ${r.status} ${await r.text()}`);
  };
  const day = (offset: number) => new Date(NOW.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  for (let i = 0; i < 20; i++) {
    await post({
      title: `Weekly class ${i}`,
      start_date: `${day(i % 7)} 18:00`,
      end_date: `${day(i % 7)} 19:30`,
      timezone: 'Europe/Paris',
      venue: fixtures.venueId,
      categories: [fixtures.categoryId],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=100'],
    });
  }
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await post({
      title: `Daily series ${i}`,
      start_date: `${day(800 + i)} 07:00`,
      end_date: `${day(800 + i)} 08:00`,
      venue: fixtures.venueId,
      categories: [fixtures.categoryId],
      recurrence: ['RRULE:FREQ=DAILY;COUNT=500'],
    });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `  write of a series of 500 occurrences: median ${times[2].toFixed(0)} ms, slowest ${times[4].toFixed(0)} ms (5 writes, one at a time)`,
  );
}
