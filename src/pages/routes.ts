// Serves the public pages at the permalinks the API's `url`s name (`/event/<slug>/`,
// `/venue/<slug>/`, `/organizer/<slug>/`), so that every `url` resolves. Pages show what anonymous
// readers may read: anything else is a 404 page, whether it is missing or not public. Each is
// written in the language the reader asks for among those of texts.ts.
import { type NextFunction, type Request, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { NotFound, NotReadable } from '../domain/errors.js';
import { pageOf } from '../domain/paging.js';
import { ORGANIZER, VENUE, type VenueOrOrganizerKind } from '../domain/records.js';
import { requestUrls } from '../http/urls.js';
import { serializeEvent } from '../serializers/events.js';
import { serializeVenueOrOrganizer } from '../serializers/venues-and-organizers.js';
import { type ServiceContext, serviceContext } from '../services/context.js';
import { listEvents } from '../services/event-list.js';
import { getEvent } from '../services/events/read.js';
import { getVenueOrOrganizer } from '../services/venues-and-organizers.js';
import { pageLanguage, sendPage } from './send.js';
import { eventPage, notFoundPage, placePage } from './views.js';
import { rsvpPages } from './rsvp.js';

/** How many of a venue's or organizer's events to come its page lists. */
const UPCOMING = 12;

export function publicPages(config: Config, db: ServiceContext['db']) {
  const router = Router();
  const anonymous = () => serviceContext(config, { db, caller: null });
  const options = (req: Request, single: boolean) => ({
    urls: requestUrls(req, config, undefined),
    siteZone: config.siteTimezone,
    caller: null,
    single,
    currency: config.costCurrency,
  });
  /** Runs a page; a name that leads to nothing public gets the 404 page, other failures the usual errors. */
  const serve =
    (render: (req: Request) => Promise<string>) => async (req: Request, res: Response, next: NextFunction) => {
      try {
        sendPage(req, res, await render(req));
      } catch (err) {
        if (err instanceof NotFound || err instanceof NotReadable)
          sendPage(req, res, notFoundPage(pageLanguage(req)), 404);
        else next(err);
      }
    };

  router.get(
    '/event/:slug/',
    serve(async (req) => {
      const row = await getEvent(anonymous(), { slug: String(req.params.slug) });
      return eventPage(serializeEvent(row, options(req, true)), pageLanguage(req));
    }),
  );
  const place = (kind: VenueOrOrganizerKind) =>
    serve(async (req) => {
      const ctx = anonymous();
      const item = await getVenueOrOrganizer(ctx, kind, { slug: String(req.params.slug) });
      const filter = kind.type === 'venue' ? { venue: [item.id] } : { organizer: [item.id] };
      const { items } = await listEvents(
        ctx,
        { ...filter, strict_dates: false, orderby: 'start_date', order: 'asc' },
        pageOf(1, UPCOMING),
      );
      const upcoming = items.map((row) => serializeEvent(row, options(req, false)));
      return placePage(
        serializeVenueOrOrganizer(kind, item, options(req, true)),
        kind.type,
        upcoming,
        pageLanguage(req),
      );
    });
  router.get('/venue/:slug/', place(VENUE));
  router.get('/organizer/:slug/', place(ORGANIZER));
  router.use(rsvpPages(config, db));
  return router;
}
