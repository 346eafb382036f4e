// Starts the service: configuration, database (migrated at start), HTTP, graceful shutdown.
import { pino } from 'pino';
import { createApp } from './app.js';
import { bootstrapAdmin } from './auth/accounts.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { startHousekeeping } from './db/housekeeping.js';
import { IDEMPOTENCY_HOURS } from './http/idempotency.js';

const log = pino({ level: process.env.LOG_LEVEL || 'info' });

async function main() {
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  if (config.admin && (await bootstrapAdmin(db.prisma, config.admin.login, config.admin.password))) {
    log.info({ login: config.admin.login }, 'created the administrator from ADMIN_USER');
  }
  const app = createApp({
    config,
    db,
    logger: log,
    onServerError: (err, req) => log.error({ err, method: req.method, url: req.url, requestId: req.res?.locals.requestId }, 'request failed'),
  });
  const stopHousekeeping = startHousekeeping(db, config.authWindowSeconds, IDEMPOTENCY_HOURS, undefined, (err) => log.warn({ err }, 'housekeeping failed'));
  const server = app.listen(config.port, config.host, () => {
    log.info({ url: `http://${config.host}:${config.port}${config.restPrefix}/calendar/events/v1`, database: db.kind }, 'listening');
  });
  // Stop taking requests (readiness fails first, for the balancer), let those in flight finish,
  // then close the database; whatever still runs after 10 s is cut off.
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    app.drain();
    stopHousekeeping();
    server.close(() => {
      db.close().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      process.exit(1);
    }, 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  log.fatal(err instanceof ConfigError ? { msg: err.message } : { err }, 'could not start');
  process.exit(1);
});
