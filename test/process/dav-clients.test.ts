// Real CalDAV clients (vdirsyncer, khal) against Radicale, the reference CalDAV server, and against
// this service, with the same scenarios (test/setup/dav-scenarios.ts). vdirsyncer talks through a
// recording proxy, so the reports (test-artifacts/dav-clients-<target>.json) show what it sends and
// can be put side by side.
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  davClientsInstalled,
  type Radicale,
  type RecordingProxy,
  startRadicale,
  startRecordingProxy,
} from '../setup/dav-clients.js';
import { type DavTarget, scenarios } from '../setup/dav-scenarios.js';
import { databaseKinds } from '../setup/databases.js';
import { startServer, type TestServer } from '../setup/server.js';

// CI installs the programs (.ci/run), so there a missing one fails the run instead of skipping it.
const skipped = !davClientsInstalled() && process.env.CI !== 'true';

describe.skipIf(skipped)('vdirsyncer and khal against Radicale', () => {
  let radicale: Radicale;
  let proxy: RecordingProxy;
  let target: DavTarget;
  const suite = scenarios(() => target);

  beforeAll(async () => {
    radicale = await startRadicale();
    proxy = await startRecordingProxy(radicale.url);
    target = {
      name: 'radicale',
      davUrl: proxy.url,
      user: radicale.user,
      password: radicale.password,
      collection: 'events',
      calendarUrl: radicale.calendarUrl,
      recorder: proxy,
    };
  });

  afterAll(async () => {
    if (target) await suite.write();
    await proxy?.close();
    await radicale?.close();
  });

  for (const scenario of suite.cases) it(scenario.name, scenario.run, 60_000);
});

describe.skipIf(skipped).each(databaseKinds)('vdirsyncer and khal against this service on %s', (kind) => {
  let server: TestServer;
  let proxy: RecordingProxy;
  let target: DavTarget;
  const suite = scenarios(() => target);

  beforeAll(async () => {
    server = await startServer(kind);
    proxy = await startRecordingProxy(server.origin);
    target = {
      name: `service-${kind}`,
      // Discovery from the CalDAV root, as a client given the site's address and /caldav/ does.
      davUrl: `${proxy.url}/caldav/`,
      user: 'editor',
      password: server.users.editor.appPassword,
      collection: 'events',
      calendarUrl: `${server.origin}/caldav/calendars/events/`,
      recorder: proxy,
      // Through the REST API, as the site's editors cancel one date of a series.
      async cancelDate(title, day) {
        const found = await server.get(
          `/events?search=${encodeURIComponent(title)}&start_date=${day}&end_date=${day} 23:59:59`,
        );
        const [date] = found.body.events as { id: number }[];
        const cancelled = await server.post(`/events/${date.id}?scope=this`, { event_status: 'canceled' });
        if (cancelled.status !== 200) throw new Error(`cancelling ${title} on ${day}: ${cancelled.text}`);
      },
    };
  });

  afterAll(async () => {
    if (target) await suite.write();
    await proxy?.close();
    await server?.close();
  });

  for (const scenario of suite.cases) it(scenario.name, scenario.run, 60_000);
});
