// `GET {prefix}/`, the REST root, as WordPress answers it: the site, its time zone and the
// namespaces it serves, with the routes of ours.
import type { NextFunction, Request, Response } from 'express';
import { DateTime } from 'luxon';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Config } from '../config.js';
import { ApiError } from '../http/errors.js';
import type { LocaleInfo } from '../http/locale.js';
import { sendReply } from '../http/reply.js';
import { NAMESPACE, requestUrls } from '../http/urls.js';
import { documentLanguage, localizedDocument } from '../openapi.js';
import { namespaceOf, namespaceRoutes } from './namespace-index.js';

export function restRoot(config: Config) {
  return (req: Request, res: Response, next: NextFunction) => {
    const locale = res.locals.locale as LocaleInfo;
    const urls = requestUrls(req, config, locale.segment);
    if (req.method === 'OPTIONS') {
      // The root's own route, described as WordPress describes a route (http/unmatched-requests.ts does the others).
      const route = { namespace: '', methods: ['GET'], endpoints: [{ methods: ['GET'], args: {} }] };
      sendReply(req, res, { body: { ...route, _links: { self: [{ href: `${urls.root}/` }] } }, headers: ALLOW });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next(new ApiError(405, 'rest_method_not_allowed', `Method ${req.method} is not allowed here.`, {}, ALLOW));
      return;
    }
    const language = documentLanguage(locale.tag);
    const document = localizedDocument(language);
    const body = {
      name: document.info.title,
      description: (document.info as { summary?: string }).summary ?? '',
      url: urls.site,
      home: urls.site,
      gmt_offset: DateTime.now().setZone(config.siteTimezone).offset / 60,
      timezone_string: config.siteTimezone,
      namespaces: [NAMESPACE, ...otherNamespaces(document)],
      authentication: [],
      routes: namespaceRoutes(document, urls, config.siteTimezone, new Date()),
    };
    // Through sendReply, so that `_fields` and `_envelope` work here as on every other route.
    sendReply(req, res, { body, headers: { 'Content-Language': language } });
  };
}

const ALLOW = { Allow: 'OPTIONS, GET, HEAD' };

/** The WordPress namespaces that the document's other routes belong to (`batch/v1`). */
function otherNamespaces(document: ReturnType<typeof localizedDocument>): string[] {
  const named = Object.values(document.paths ?? {}).map((item) => namespaceOf(item as OpenAPIV3_1.PathItemObject));
  return [...new Set(named.filter((namespace) => namespace !== undefined))];
}
