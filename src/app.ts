// The composition root: createApp makes the app's parts and mounts them, in the order a request
// meets them. It never listens; server.ts does. What each part does is in the module named.
import express, { type Request } from 'express';
import type { Logger } from 'pino';
import { davRoutes } from './caldav/routes.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { restRoot } from './discovery/rest-root.js';
import { siteRoot } from './discovery/site-root.js';
import { compileValidators, createBackend } from './http/backend.js';
import { BATCH_PATH } from './http/batch.js';
import { bodyParsers } from './http/body.js';
import { discoveryLink } from './http/discovery-link.js';
import { answerErrors, unrouted } from './http/error-answers.js';
import { hardening, requestId } from './http/hardening.js';
import { health } from './http/health.js';
import { setAnswerBudget } from './http/json-within.js';
import { keptAnswers } from './http/kept-answers.js';
import { localeMiddleware } from './http/locale.js';
import { mediaFiles } from './http/media-files.js';
import { notifyWrites } from './http/notify-writes.js';
import { registerHandlers } from './http/operation-handlers.js';
import { countOtherReads, createRateLimits } from './http/rate-limits.js';
import { requestLog } from './http/request-log.js';
import { restPipeline } from './http/rest-pipeline.js';
import { registerSecurity } from './http/security.js';
import { admitSubmissionImage, admitUpload } from './http/upload-admission.js';
import { MEDIA_UPLOAD, SUBMISSION_UPLOAD, uploadBody } from './http/upload-body.js';
import { hostCheck, NAMESPACE } from './http/urls.js';
import { methodOverride, restRoute } from './http/wordpress-request.js';
import { sampleLoopDelay } from './metrics/event-loop.js';
import { measureRequests, protectedMetrics } from './metrics/http.js';
import { trackFeedLag } from './metrics/registry.js';
import { assertDocumentationBuilt, loadDocument } from './openapi.js';
import { publicPages } from './pages/routes.js';
import { submissionPages } from './pages/submit.js';
import { createCalendarFederation } from './federation/federation.js';
import { federationRoutes } from './federation/routes.js';
import { selectFeedLag } from './queries/changes.js';

export interface AppOptions {
  config: Config;
  db: Database;
  /** Called with every failure that becomes a 5xx, for logging. */
  onServerError?: (err: unknown, req: Request) => void;
  /** Logs one line per request (method, URL, status, time); never headers or bodies. */
  logger?: Logger;
  /** Called after each write that succeeded (webhooks look for new changes at once). */
  afterWrite?: () => void;
}

export function createApp({ config, db, onServerError, logger, afterWrite }: AppOptions) {
  assertDocumentationBuilt();
  const api = createBackend(loadDocument());
  const rateLimits = createRateLimits(config.rateLimits, db.connectionString);
  const identify = registerSecurity(api, { config, db, rateLimits });
  const feedLag = () => selectFeedLag(db.prisma);
  const probes = health(db, feedLag);
  const untrackFeedLag = trackFeedLag(feedLag);
  const namespace = `${config.restPrefix}/${NAMESPACE}`;

  sampleLoopDelay();
  const app = express();
  // The batch route answers each of its requests with this whole app (http/batch.ts).
  registerHandlers(api, { config, db, app, onServerError });
  app.disable('x-powered-by');
  // req.ip, which keys the sign-in throttle, comes from X-Forwarded-For only behind a trusted proxy.
  app.set('trust proxy', config.trustProxy);
  app.use(requestId());
  app.use(measureRequests());
  if (logger) app.use(requestLog(logger));
  if (afterWrite) app.use(notifyWrites(afterWrite));
  app.use(localeMiddleware(config.restPrefix));
  app.use(discoveryLink(config));
  app.use(hardening(config));
  app.use(hostCheck(config));
  // ActivityPub (federation/routes.ts), before the body parsers: an inbox reads its body as the
  // bytes that were signed. Only with PUBLIC_URL, from which every id is built.
  const federated = config.federation
    ? createCalendarFederation(config, db.prisma, config.federation, (err) => logger?.warn({ err }, 'federation inbox'))
    : undefined;
  if (federated) app.use(federationRoutes(config, db.prisma, federated.federation, federated.site));
  app.use(probes.router);
  if (config.metrics.token) app.use(protectedMetrics(config.metrics.token));
  // CalDAV reads its own bodies (XML, iCalendar), before the API's parsers (caldav/routes.ts).
  app.use(davRoutes({ config, db, identify, rateLimits, onServerError }));
  setAnswerBudget(app, config.answerMaxBytes);
  app.set('etag', false); // Express's weak ETag would hide our strong one (http/conditional.ts)
  app.set('query parser', false); // normalizeQuery reads the raw query against the document
  app.use(restRoute(config.restPrefix));
  app.use(methodOverride());
  // An upload's body is the image, read before (and instead of) the JSON and form parsers.
  app.use(uploadBody(`${namespace}/media`, MEDIA_UPLOAD(config.media.maxBytes), admitUpload(identify, rateLimits)));
  app.use(
    uploadBody(
      `${namespace}/submissions`,
      SUBMISSION_UPLOAD(config.submissions.imageMaxBytes),
      admitSubmissionImage(identify, rateLimits, config.submissions),
    ),
  );
  app.use(bodyParsers());

  // What lies outside the document's operations costs a read too (they count their own).
  app.use(countOtherReads(rateLimits, namespace));
  // The REST root and the site root lie outside the namespace, so outside the document's paths.
  app.all(config.restPrefix, restRoot(config));
  app.get('/', siteRoot(config));
  // The public pages that `url`s name (/event/<slug>/, /venue/<slug>/, /organizer/<slug>/).
  app.use(publicPages(config, db.prisma));
  // The submission form (/submit/), which sends what it is given through this whole app to the API.
  app.use(submissionPages({ config, db: db.prisma, app }));
  // The media library's files (/uploads/<id>/<name>), which items' `image` objects name.
  app.use(mediaFiles(db.prisma, identify));
  const operations = restPipeline(api, { config, rateLimits, identify, answers: keptAnswers(config, db) });
  // WordPress's batch route lies beside the namespace, under the REST prefix, where the document's
  // path-level server puts it (openapi/paths/batch_v1.yaml). Tools that read only the document's
  // top-level server (Postman's converter) send it under the namespace, where it is answered too.
  app.use(config.restPrefix, (req, res, next) => {
    if (req.path === BATCH_PATH) operations(req, res, next);
    else next();
  });
  app.use(namespace, operations);
  app.use(unrouted());
  app.use(answerErrors(onServerError));
  return Object.assign(app, {
    drain: probes.drain,
    ready: () => rateLimits.ready(),
    close: () => {
      untrackFeedLag();
      return rateLimits.close();
    },
    /** The ActivityPub federation, when on: server.ts starts its delivery worker with it. */
    federation: federated,
    /** Prepares what the first request of each operation would otherwise prepare. */
    warmUp: () => compileValidators(api),
  });
}
