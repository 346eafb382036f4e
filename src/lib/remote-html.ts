// HTML written by someone else's server (a remote event's `content`): kept to the markup a
// description needs, with sanitize-html (htmlparser2 underneath): no script, style, iframe, form,
// event handler or style attribute; links only to http(s) and mailto, opened without the referrer
// and without giving the page a handle on ours. The service stores descriptions as they are sent
// (docs/decisions.md), so what another server sends is cleaned before it is written.
import sanitizeHtml from 'sanitize-html';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'a',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'del',
    'ins',
    'mark',
    'small',
    'sub',
    'sup',
    'ul',
    'ol',
    'li',
    'blockquote',
    'code',
    'pre',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'span',
  ],
  allowedAttributes: { a: ['href', 'title'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  // What is left out goes with its text for these (a script's code is no description); the text of
  // other tags (a `div`, an `img`'s neighbours) stays.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head'],
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer ugc' }),
  },
};
// `rel` is written by the transform above, not taken from the source.
OPTIONS.allowedAttributes = { a: ['href', 'title', 'rel'] };

/** The HTML with only the allowed tags and attributes left. */
export const sanitizeRemoteHtml = (html: string): string => sanitizeHtml(html, OPTIONS).trim();
