// `GET /`, the site root: where a person or a program that found the service lands first. It points
// to the API, its documentation and the health probe instead of answering a bare 404; browsers get
// a small page, everything else JSON.
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { LocaleInfo } from '../http/locale.js';
import { sendReply } from '../http/reply.js';
import { NAMESPACE, requestUrls } from '../http/urls.js';
import { loadDocument } from '../openapi.js';
import { escapeUTF8 as escapeHtml } from 'entities';

export function siteRoot(config: Config) {
  return (req: Request, res: Response) => {
    const urls = requestUrls(req, config, (res.locals.locale as LocaleInfo).segment);
    const info = loadDocument().info;
    const links = {
      name: info.title,
      api: `${urls.root}/`,
      namespace: urls.base,
      documentation: `${urls.base}/doc`,
      health: `${new URL(urls.root).origin}/healthz`,
    };
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      sendReply(req, res, { body: page(links), contentType: 'text/html; charset=utf-8', headers: { Vary: 'Accept' } });
      return;
    }
    sendReply(req, res, { body: links, headers: { Vary: 'Accept' } });
  };
}

function page(links: { name: string; api: string; namespace: string; documentation: string; health: string }) {
  const a = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(links.name)}</title></head>
<body>
<main>
<h1>${escapeHtml(links.name)}</h1>
<ul>
<li>The API: ${a(links.namespace, links.namespace)} (namespace <code>${NAMESPACE}</code>)</li>
<li>Its documentation: ${a(links.documentation, 'the OpenAPI document, as a page')}</li>
<li>The REST root: ${a(links.api, links.api)}</li>
<li>Health: ${a(links.health, links.health)}</li>
</ul>
</main>
</body>
</html>
`;
}
