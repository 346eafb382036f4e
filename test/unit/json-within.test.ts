// JSON within a budget (src/http/json-within.ts): the same text as JSON.stringify, or a refusal
// before more than the budget and one part is built.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerTooLarge, jsonWithin } from '../../src/http/json-within.js';

describe('jsonWithin', () => {
  it('writes what JSON.stringify writes, whatever the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.anything(), (json, anything) => {
        const text = JSON.stringify(json);
        expect(jsonWithin(json, 1e9)).toBe(text);
        // Exactly its length is room enough; one less is not.
        expect(jsonWithin(json, text.length)).toBe(text);
        expect(() => jsonWithin(json, text.length - 1)).toThrow(AnswerTooLarge);
        const withDates = { at: new Date(0), list: [undefined, () => 1, json], skipped: undefined, anything };
        let expected: string | undefined;
        try {
          expected = JSON.stringify(withDates);
        } catch {
          return; // a BigInt or a cycle: nothing an answer holds
        }
        expect(jsonWithin(withDates, 1e9)).toBe(expected);
      }),
    );
  });

  it('refuses past the budget, counting every character', () => {
    const value = { events: [{ title: 'a'.repeat(10) }, { title: 'b'.repeat(10) }], total: 2 };
    const length = JSON.stringify(value).length;
    expect(jsonWithin(value, length)).toBe(JSON.stringify(value));
    expect(() => jsonWithin(value, length - 1)).toThrow(AnswerTooLarge);
  });

  it('stops at the first part past the budget, without building the rest', () => {
    let built = 0;
    const part = { toJSON: () => (built++, 'x'.repeat(1000)) };
    expect(() => jsonWithin({ items: Array.from({ length: 1000 }, () => part) }, 10_000)).toThrow(AnswerTooLarge);
    expect(built).toBeLessThanOrEqual(11);
  });
});
