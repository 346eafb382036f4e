import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, newCheckInCode, normaliseCheckInCode } from '../../src/lib/check-in-code.js';

describe('check-in codes', () => {
  it('draws 8 characters of the alphabet, each of them', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const code = newCheckInCode();
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
      for (const c of code) seen.add(c);
    }
    expect([...seen].sort().join('')).toBe(CODE_ALPHABET);
  });

  it.each([
    ['abcd2345', 'ABCD2345'],
    ['ABCD-2345', 'ABCD2345'],
    [' ab cd - 23 45 ', 'ABCD2345'],
    ['o1il-0000', '0111' + '0000'],
    ['ABCD-2345-U', 'ABCD2345U'],
  ])('reads %j as %j', (typed, stored) => {
    expect(normaliseCheckInCode(typed)).toBe(stored);
  });
});
