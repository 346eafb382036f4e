// HTML to plain text: what ordinary descriptions become, and that hostile ones at the longest a
// description may be (65,535 characters, openapi/components/schemas) take linear time.
import { describe, expect, it } from 'vitest';
import { plainText } from '../../src/lib/plain-text.js';

const MAX = 65_535;

describe('plainText', () => {
  it.each([
    ['<p>One</p><p>Two</p>', 'One\nTwo'],
    ['Line<br>break<br/>and<BR />more', 'Line\nbreak\nand\nmore'],
    // The source's line break after a <br> is the same break (as the iCalendar importer writes one).
    ['<p>one<br />\ntwo<br>\r\nthree</p>\n<p>four</p>', 'one\ntwo\nthree\n\nfour'],
    ['<div>a</div >b<li>c</li><h2>d</h2>', 'a\nbc\nd'],
    ['<strong>bold</strong> &amp; <em>em</em>', 'bold & em'],
    ['&lt;p&gt; stays text', '<p> stays text'],
    ['&#x41;&#66;&eacute;&hellip;&nbsp;!', 'ABé…\u00a0!'],
    ['&bogus; &#0; &#xD800;', '&bogus; \ufffd \ufffd'],
    ['a   \t\nb', 'a\nb'],
    ['a\n\n\n\n\nb', 'a\n\nb'],
    ['  <p>  padded  </p>  ', 'padded'],
    ['3 < 4 and 5 > 2', '3  2'],
    ['unclosed < tag', 'unclosed < tag'],
    ['<a href="x">link</a> <img src="y"> end', 'link  end'],
    ['', ''],
  ])('turns %j into %j', (html, text) => {
    expect(plainText(html)).toBe(text);
  });

  it.each([
    ['<', '<'.repeat(MAX)],
    ['<p', '<p'.repeat(MAX / 2)],
    ['<br', '<br'.repeat(MAX / 3)],
    ['< and spaces', `<${' '.repeat(MAX - 2)}x`],
    ['spaces', `${' \t'.repeat(MAX / 2)}x`],
    ['&#', '&#'.repeat(MAX / 2)],
    ['&#x1', '&#x1'.repeat(MAX / 4)],
    ['&a', `&${'a'.repeat(MAX - 1)}`],
    ['newlines', '\n'.repeat(MAX)],
    ['<p><p', '<p><p'.repeat(MAX / 5)],
  ])('takes linear time on %s at the maximum length', (_name, html) => {
    const started = performance.now();
    plainText(html);
    // The quadratic version took about 4 s for the first input; linear work is a few milliseconds.
    expect(performance.now() - started).toBeLessThan(250);
  });
});
