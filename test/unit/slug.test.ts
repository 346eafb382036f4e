import { describe, expect, it } from 'vitest';
import { firstFreeSlug, slugify } from '../../src/lib/slug.js';

describe('slugify', () => {
  it.each([
    ['Winter Jazz Night', 'winter-jazz-night'],
    ['  Jazz & Blues  ', 'jazz-blues'],
    ["New Year's Eve Gala", 'new-years-eve-gala'],
    ['Maison de la Culture Mont-Royal', 'maison-de-la-culture-mont-royal'],
    ['Montréal Ça Été', 'montreal-ca-ete'],
    ['Straße', 'straße'],
    ['東京 ライブ', '東京-ライブ'],
    ['Москва 2027', 'москва-2027'],
    ['---', ''],
    ['a/b\\c', 'a-b-c'],
  ])('%s -> %s', (input, expected) => {
    expect(slugify(input)).toBe(expected);
  });

  it('keeps slugs short enough for a numeric suffix', () => {
    expect(slugify('a'.repeat(500)).length).toBeLessThanOrEqual(190);
  });
});

describe('firstFreeSlug', () => {
  it.each([
    ['venue', [], 'venue'],
    ['venue', ['venue'], 'venue-2'],
    ['venue', ['venue', 'venue-2', 'venue-3'], 'venue-4'],
    ['venue', ['venue', 'venue-3'], 'venue-2'],
    ['venue', ['venue-2'], 'venue'],
  ])('%s with %j taken -> %s', (base, taken, expected) => {
    expect(firstFreeSlug(base, taken)).toBe(expected);
  });
});
