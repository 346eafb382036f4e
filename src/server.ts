// Starts the service: configuration, database (migrated at start), HTTP, graceful shutdown.
import { pino } from 'pino';
import { createApp } from './app.js';
import { bootstrapAdmin } from './auth/accounts.js';
import type { AddressInfo } from 'node:net';
import { type Config, loadConfig } from './config.js';
import { ConfigError } from './config/read.js';
import { type Database, openDatabase } from './db/client.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { createHttpServer } from './http/http-server.js';
import { startHousekeeping } from './db/housekeeping.js';
import { extendSeries } from './services/series/window.js';
import { IDEMPOTENCY_HOURS } from './http/idempotency.js';
import { configuredUrls, listeningHost, NAMESPACE } from './http/urls.js';
import { startWebhooks, type WebhookWorker } from './webhooks/worker.js';
import { type FederationWorker, startFederation } from './federation/worker.js';
import { type MailSender, startMailSender } from './mail/sender.js';
import { startMetricsServer } from './metrics/http.js';
import { withoutSecrets } from './http/request-log.js';

const log = pino({ level: process.env.LOG_LEVEL || 'info' });

async function main() {
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.databaseConnectTimeoutSeconds * 1000,
    statementTimeoutMs: config.databaseStatementTimeoutSeconds * 1000,
    transactionTimeoutMs: config.databaseTransactionTimeoutSeconds * 1000,
  });
  if (config.admin && (await bootstrapAdmin(db.prisma, config.admin.login, config.admin.password))) {
    log.info({ login: config.admin.login }, 'created the administrator from ADMIN_USER');
  }
  // Started once the port is known (the messages' URLs name it); writes nudge it from the start.
  let webhooks: WebhookWorker | undefined;
  let mail: MailSender | undefined;
  let federation: FederationWorker | undefined;
  const app = createApp({
    config,
    db,
    afterWrite: () => {
      webhooks?.nudge();
      mail?.nudge();
      federation?.nudge();
    },
    logger: log,
    onServerError: (err, req) => {
      log.error(
        { err, method: req.method, url: withoutSecrets(req.url), requestId: req.res?.locals.requestId },
        'request failed',
      );
    },
  });
  const stopHousekeeping = startHousekeeping(
    db,
    {
      authWindowSeconds: config.authWindowSeconds,
      idempotencyHours: IDEMPOTENCY_HOURS,
      changesRetentionDays: config.changesRetentionDays,
      spamDays: config.submissions.spamDays,
    },
    undefined,
    (err) => {
      log.warn({ err }, 'housekeeping failed');
    },
    [() => extendSeries(db.prisma, config.recurrence, new Date(), config.quotas)],
  );
  // The rate limits' shared store (Redis) reached before the first request is counted.
  await app.ready();
  const metricsPort = config.metrics.port;
  const metricsServer =
    metricsPort === undefined ? undefined : await startMetricsServer({ ...config.metrics, port: metricsPort });
  if (metricsServer) {
    const { port } = metricsServer.address() as AddressInfo;
    log.info({ metrics: `http://${config.metrics.host}:${port}/metrics` }, 'metrics served on a port of their own');
  }
  // Every operation's validators, compiled before the first request rather than inside it (about
  // a second in all; up to 55 ms of one request's time otherwise, http/backend.ts).
  await app.warmUp();
  const server = createHttpServer(app, config.http);
  // A port in use or not ours to take is the end of this process: staying up while serving
  // nothing would look like a running service.
  server.once('error', (err: NodeJS.ErrnoException) => {
    log.fatal(
      { code: err.code, host: config.host, port: config.port },
      `cannot listen on ${config.host}:${config.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use by another process' : err.message}`,
    );
    stopHousekeeping();
    // process.exit in finally: a failed close ends the process all the same, nothing is left to handle.
    void db.close().finally(() => process.exit(1));
  });
  server.listen(config.port, config.host, () => {
    const port = (server.address() as AddressInfo).port;
    webhooks = startWebhooks(
      db,
      {
        payload: { urls: configuredUrls(config, port), siteZone: config.siteTimezone, currency: config.costCurrency },
        delivery: config.webhooks,
      },
      (err) => {
        log.warn({ err }, 'webhook delivery failed');
      },
    );
    mail = startMailSender(db, { urls: configuredUrls(config, port), mail: config.mail }, (err) => {
      log.warn({ err }, 'mail not sent');
    });
    if (app.federation && config.federation) {
      federation = startFederation(
        db,
        app.federation.federation,
        {
          federation: config.federation,
          dispatch: {
            urls: configuredUrls(config, port),
            siteZone: config.siteTimezone,
            currency: config.costCurrency,
          },
        },
        (err) => {
          log.warn({ err }, 'federation delivery failed');
        },
      );
    }
    void announce(config, db, port);
  });
  const stopBackground = async () => {
    stopHousekeeping();
    await webhooks?.stop();
    await mail?.stop();
    await federation?.stop();
  };
  const stop = shutdown({
    drain: app.drain,
    server,
    db,
    stopBackground,
    // Once the last request is answered: the rate limits count, and the metrics are scraped, to the end.
    closeAfterServer: async () => {
      metricsServer?.close();
      await app.close();
    },
    graceSeconds: config.shutdownGraceSeconds,
  });
  process.once('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.once('SIGINT', () => {
    stop('SIGINT');
  });
}

/**
 * Where everything is, for whoever just ran `npm start`: the API, its documentation page and the
 * probes; and, while no account exists, how to make the first administrator.
 */
async function announce(config: Config, db: Database, port: number) {
  const origin = `http://${listeningHost(config)}:${port}`;
  const api = `${origin}${config.restPrefix}/${NAMESPACE}`;
  const where = { api, documentation: `${api}/doc`, health: `${origin}/healthz`, database: db.kind };
  log.info(where, `listening: the API at ${api}, its documentation at ${api}/doc, health at ${origin}/healthz`);
  if ((await db.prisma.user.count()) === 0) {
    log.warn(
      'no account exists yet: reads work, writes need one. Create the first administrator with ' +
        '`npm run users -- create admin --role administrator` (stop the service first when it uses ' +
        'the embedded database), or start with ADMIN_USER and ADMIN_PASSWORD set',
    );
  }
}

/**
 * The shutdown on a signal: fail readiness at once, so that balancers stop sending requests here;
 * keep serving for the grace period; then stop accepting, let the requests in flight finish and
 * close the database. Whatever still runs 10 s later is cut off. A second signal changes nothing.
 */
function shutdown(parts: {
  drain: () => void;
  server: ReturnType<typeof createHttpServer>;
  db: Database;
  /** Stops at once; resolves when what it runs (webhook attempts in flight) has ended. */
  stopBackground: () => Promise<void>;
  /** What requests use, closed after the server has answered its last one. */
  closeAfterServer: () => Promise<void>;
  graceSeconds: number;
}) {
  let stopping = false;
  return (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceSeconds: parts.graceSeconds }, 'shutting down');
    parts.drain();
    // Webhook attempts in flight finish and are recorded before the database closes; else their
    // messages would be sent again once their leases ran out.
    const background = parts.stopBackground().catch((err: unknown) => {
      log.warn({ err }, 'stopping the background work failed');
    });
    setTimeout(() => {
      parts.server.close(() => {
        void background
          .then(() => parts.closeAfterServer())
          .then(() => parts.db.close())
          .finally(() => process.exit(0));
      });
      setTimeout(() => {
        parts.server.closeAllConnections();
        process.exit(1);
      }, 10_000).unref();
    }, parts.graceSeconds * 1000);
  };
}

main().catch((err: unknown) => {
  // A setting or a data directory in use is the operator's to fix: one message that says which.
  if (err instanceof ConfigError || err instanceof DataDirLockedError) log.fatal(`could not start: ${err.message}`);
  else log.fatal({ err }, 'could not start');
  process.exit(1);
});
