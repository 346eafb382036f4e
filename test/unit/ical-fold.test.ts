// Folding of iCalendar lines (lib/ical-fold.ts) against ical-generator's own foldLines, which it
// replaces for speed: the same text for any input, ASCII or not, surrogate pairs included.
import fc from 'fast-check';
import { foldLines as libraryFold } from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { foldLines } from '../../src/lib/ical-fold.js';

const texts = fc.array(
  fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'grapheme', maxLength: 120 }),
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.constant('\r\n'),
  ),
  { maxLength: 6 },
);

describe('foldLines', () => {
  it('folds as ical-generator does, whatever the text', () => {
    fc.assert(
      fc.property(texts, (parts) => {
        const text = parts.join('');
        expect(foldLines(text)).toBe(libraryFold(text));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['a short line', 'SUMMARY:Jazz'],
    ['75 octets exactly', `DESCRIPTION:${'x'.repeat(63)}`],
    ['two-octet characters across the fold', `SUMMARY:${'é'.repeat(80)}`],
    ['four-octet characters across the fold', `SUMMARY:${'🎷'.repeat(40)}`],
  ])('keeps every line within 75 octets: %s', (_, line) => {
    const folded = foldLines(line);
    for (const part of folded.split('\r\n')) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(75);
    expect(folded.replace(/\r\n /g, '')).toBe(line);
  });
});
