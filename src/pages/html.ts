// The shell of every public page: a plain, accessible document (a language, a title, one main
// landmark, headings in order) with a little inline style and nothing loaded from elsewhere.
import { escapeUTF8 } from 'entities';

/** Text as HTML: `&`, `<`, `>`, quotes escaped (entities, the htmlparser2 family's encoder). */
export const text = (value: string) => escapeUTF8(value);

/**
 * JSON inside `<script type="application/ld+json">`: `<` escaped, so that no value (a title holding
 * `</script>`) can end the script early; JSON parsers read `\u003c` as `<`.
 */
export const jsonInScript = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

/** What the pages may load: their own inline style, and images from the site's library or anywhere on https. */
export const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; frame-ancestors 'none'";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff}
main{max-width:42rem;margin:0 auto;padding:2rem 1rem}h1{line-height:1.2}dt{font-weight:600}
dd{margin:0 0 .75rem}.status{border-left:4px solid #b3261e;padding:.25rem .75rem;background:#fdecea}
.status-postponed{border-color:#8a5a00;background:#fff4e0}a{color:#0b57d0}.actions a{display:inline-block;margin:0 1rem .5rem 0}img{max-width:100%;height:auto}`;

export function page(lang: string, title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="${text(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(title)}</title>
<style>${STYLE}</style>
${head}
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
