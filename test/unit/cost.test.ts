import { describe, expect, it } from 'vitest';
import { parseCost } from '../../src/lib/cost.js';

describe('parseCost', () => {
  it.each([
    ['20$', '20$', '$', 'postfix', ['20']],
    ['$120', '$120', '$', 'prefix', ['120']],
    [['0$', '20$', '30$'], 'Free – 30$', '$', 'postfix', ['0', '20', '30']],
    ['10 – 25$', '10$ – 25$', '$', 'postfix', ['10', '25']],
    ['10,50', '10 – 50', '', '', ['10', '50']],
    ['€5 - €8', '€5 – €8', '€', 'prefix', ['5', '8']],
    ['5-8', '5 – 8', '', '', ['5', '8']],
    [0, 'Free', '', '', ['0']],
    ['0', 'Free', '', '', ['0']],
    ['Free', 'Free', '', '', ['free']],
    ['$5, £8', '5 – 8', '', '', ['5', '8']],
    ['1.234 kr', '1234kr', 'kr', 'postfix', ['1234']],
    ['12.50 $', '12.5$', '$', 'postfix', ['12.5']],
    ['', '', '', '', []],
    [null, '', '', '', []],
  ] as const)('%j', (input, cost, symbol, position, values) => {
    const parsed = parseCost(input as never);
    expect(parsed.cost).toBe(cost);
    expect(parsed.cost_details).toEqual({
      currency_symbol: symbol,
      currency_code: '',
      currency_position: position,
      values,
    });
  });

  it('keeps labels beside amounts and never throws on odd text', () => {
    expect(parseCost(['Donation', '10$']).cost_details.values).toEqual(['10', 'donation']);
    for (const odd of ['$$$', '-', '–––', '\u0000', '9'.repeat(400), '.5', '1e9'])
      expect(() => parseCost(odd)).not.toThrow();
  });
});
