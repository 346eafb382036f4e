import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CostInput, costEntries, parseCost } from '../../src/lib/cost.js';

// What the modelled plugin answers with its default settings (`$` before the amount), `cost` and
// `cost_details` ({currency_symbol, currency_code, currency_position, values}) for each input.
// S: the input and answer are in the samples (../shared/reference/samples) or the reference (tec-rest-v1.md);
// S*: the answer is in a sample, the input is not shown there and is the one that gives it;
// D: derived from the rule in src/lib/cost.ts.
type Row = [
  source: 'S' | 'S*' | 'D',
  input: CostInput,
  cost: string,
  symbol: string,
  position: string,
  values: string[],
];

const rows: Row[] = [
  ['S', '5$', '5$', '$', 'postfix', ['5']], // event-create.json
  ['S', '5$ – 8$', '$5 – $8', '', '', ['5', '8']], // event-update.json
  ['S', '10 – 25$', '$10 – $25', '', '', ['10', '25']], // event-get.json, reference 9.4
  ['S', ['15$', '30$'], '15$ – 30$', '$', 'postfix', ['15', '30']], // events-list.json, reference 9.4
  ['S*', '$120', '$120', '$', 'prefix', ['120']], // events-list.json, New Year's Eve Gala
  ['S*', '5', '$5', '', '', ['5']], // events-list.json, Kids' Science Morning
  ['S', 'Free', 'Free', '', '', ['free']], // event-get-by-slug.json, reference 9.4
  ['S', '0', '', '', '', []], // events-list.json, Spring Open Studio (cost "0"), reference 9.4
  ['S', 0, '', '', '', []], // reference 9.4: a cost of 0 is not stored
  ['S', ['0$', '20$', '30$'], 'Free – 30$', '$', 'postfix', ['0', '20', '30']], // reference 1.1, 4.3
  ['S', '20$', '20$', '$', 'postfix', ['20']], // reference 4.3
  ['S*', '$23', '$23', '$', 'prefix', ['23']], // reference 1.1 (the answer "$23")
  ['S', '', '', '', '', []], // reference 1.1, 3.x: "" when no cost
  ['D', null, '', '', '', []],
  ['D', [], '', '', '', []],
  ['D', '   ', '', '', '', []],
  // Numbers in plain digits, never in exponent form ("1e+21" read as text was the range 1 to 21).
  ['D', 1e21, '$1000000000000000000000', '', '', ['1000000000000000000000']],
  ['D', [1e21, 12.5], '$12.5 – $1000000000000000000000', '', '', ['12.5', '1000000000000000000000']],
  // A stray separator is no currency symbol.
  ['D', '5.', '$5', '', '', ['5']],
  ['D', '1.5.', '$1.5', '', '', ['1.5']],
  // Decimal commas and thousands separators.
  ['D', '€12,50', '€12,50', '€', 'prefix', ['12.50']],
  ['D', '12,50 €', '12,50€', '€', 'postfix', ['12.50']],
  ['D', '10,50', '$10,50', '', '', ['10.50']],
  ['D', '10,5', '$10,5', '', '', ['10.5']],
  ['D', '12.50 $', '12.50$', '$', 'postfix', ['12.50']],
  ['D', '.50', '$.50', '', '', ['0.50']],
  ['D', '1,234', '$1,234', '', '', ['1234']],
  ['D', '1.234', '$1.234', '', '', ['1.234']],
  ['D', '$1,234.50', '$1,234.50', '$', 'prefix', ['1234.50']],
  ['D', '1.234,50 €', '1.234,50€', '€', 'postfix', ['1234.50']],
  ['D', '1.234.567 kr', '1.234.567kr', 'kr', 'postfix', ['1234567']],
  // Several values: a comma before a space, dashes, en dashes, array items.
  ['D', '10, 50', '$10 – $50', '', '', ['10', '50']],
  ['D', '10€, 5€, 20€', '5€ – 20€', '€', 'postfix', ['5', '10', '20']],
  ['D', '€5, €8', '€5 – €8', '€', 'prefix', ['5', '8']],
  ['D', '€5 - €8', '$5 – $8', '', '', ['5', '8']],
  ['D', '5-8', '$5 – $8', '', '', ['5', '8']],
  ['D', '5 – 10 – 15', '$5 – $15', '', '', ['5', '10', '15']],
  ['D', '$5, £8', '$5 – $8', '', '', ['5', '8']],
  ['D', 'Adults $10, kids $5', '$5 – $10', '', '', ['5', '10']],
  ['D', [10, 25], '$10 – $25', '', '', ['10', '25']],
  ['D', 12.5, '$12.5', '', '', ['12.5']],
  ['D', 'USD 5', 'USD5', 'USD', 'prefix', ['5']],
  // Free and words.
  ['D', '0$', 'Free', '$', 'postfix', ['0']],
  ['D', '0.00', 'Free', '', '', ['0.00']],
  ['D', [0], 'Free', '', '', ['0']],
  ['D', ['Donation', '10$'], '10$', '$', 'postfix', ['donation', '10']],
  ['D', 'Pay what you want', 'Pay what you want', '', '', ['pay-what-you-want']],
  ['D', ['Free', 'Donation'], 'Free, Donation', '', '', ['free', 'donation']],
];

describe('parseCost', () => {
  it.each(rows)('%s %j', (_source, input, cost, symbol, position, values) => {
    const parsed = parseCost(input);
    expect(parsed.cost).toBe(cost);
    expect(parsed.cost_details).toEqual({
      currency_symbol: symbol,
      currency_code: '',
      currency_position: position,
      values,
    });
  });

  it('shows amounts without a symbol of their own with the site currency settings', () => {
    const euro = { symbol: '€', position: 'suffix' } as const;
    expect(parseCost('10 – 25$', euro).cost).toBe('10€ – 25€');
    expect(parseCost('5', euro).cost).toBe('5€');
    expect(parseCost('0$, 5', euro).cost).toBe('Free – 5€');
    expect(parseCost('$12,50', euro).cost).toBe('$12,50');
    expect(parseCost('12', { symbol: 'CHF ', position: 'prefix' }).cost).toBe('CHF 12');
  });

  it('reads a number in plain digits, as toLocaleString writes it without grouping', () => {
    // One formatter for every number (lib/cost.ts plain): the same text as toLocaleString's own.
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.constantFrom(1e21, 1e-7, 2 ** 53, 0.1 + 0.2)), (n) => {
        const digits = n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
        expect(costEntries(n)).toEqual(n === 0 ? [] : [digits]);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on odd text', () => {
    for (const odd of ['$$$', '-', '–––', ',,,', '\u0000', '9'.repeat(400), '.5', '1e9', '1,,2', '1.2.3,4,5', '¹²'])
      expect(() => parseCost(odd)).not.toThrow();
  });
});
