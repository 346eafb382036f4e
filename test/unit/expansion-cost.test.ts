// What a walk of a rule costs (lib/recurrence.ts densityOf, tooCostly, ruleCost), worked out from
// the calendar, and the budget of a CalDAV expansion (caldav/query.ts ExpansionBudget): its steps,
// its deadline and its client, each checked every thousand steps.
import { describe, expect, it } from 'vitest';
import { DavError } from '../../src/caldav/errors.js';
import { ExpansionBudget } from '../../src/caldav/query.js';
import { densityOf, MAX_STEPS_PER_START, ruleCost } from '../../src/lib/recurrence.js';

const parts = (rule: string) => new Map(rule.split(';').map((part) => part.split('=') as [string, string]));

describe('the cost of walking a rule', () => {
  it.each([
    // Every period has a start.
    ['FREQ=DAILY', 1, 1],
    ['FREQ=HOURLY', 1, 1],
    // Monday and Wednesday: Wednesday to Monday is five days, two steps of the weekly walk.
    ['FREQ=WEEKLY;BYDAY=MO,WE', 3, 1],
    // 25 December at 09:00: a year of days, walked by the day (BYHOUR), or by the hour without it.
    ['FREQ=HOURLY;BYMONTH=12;BYMONTHDAY=25;BYHOUR=9', 366, 365.2425],
    ['FREQ=HOURLY;BYMONTH=12;BYMONTHDAY=25', 8761, 365.2425],
    // 29 February: four years apart, eight across 2100.
    ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29', 2921, 146_097 / 97],
    // A Monday 29 February: 28 years apart, 40 across 2100.
    ['FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=3;BYDAY=MO', 14_609, 146_097 / 15],
    // Monthly and yearly walks take a step per month or year.
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', 1, 1],
  ])('%s: at most %d steps from one start to the next, %s on average', (rule, longest, mean) => {
    const density = densityOf(parts(rule));
    expect(density.longest).toBe(longest);
    expect(density.mean).toBeCloseTo(mean, 3);
  });

  it('refuses rules whose starts are too rare, COUNTs too long to walk, and rules that never occur', () => {
    expect(ruleCost('FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=3;BYDAY=MO')).toMatch(
      new RegExp(`up to 14609 steps .* at most ${MAX_STEPS_PER_START}`),
    );
    expect(ruleCost('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29')).toBeUndefined();
    expect(ruleCost('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=30')).toBeUndefined();
    expect(ruleCost('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=100')).toMatch(
      /COUNT is walked from the start in about 153537 steps .* at most 50000/,
    );
    expect(ruleCost('FREQ=DAILY;COUNT=5000')).toBeUndefined();
    expect(ruleCost('FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31')).toMatch(/never gives a start/);
  });
});

describe('the budget of an expansion', () => {
  const limits = { expandInstances: 2, expandSteps: 5000, expandMs: 60_000 };
  const refusal = (budget: ExpansionBudget, kind: 'instances' | 'steps', times: number) => {
    try {
      for (let i = 0; i < times; i++) budget.take(kind);
    } catch (err) {
      return err as DavError;
    }
    return undefined;
  };

  it('refuses past its occurrences or its steps, naming them', () => {
    expect(refusal(new ExpansionBudget(limits), 'instances', 2)).toBeUndefined();
    const instances = refusal(new ExpansionBudget(limits), 'instances', 3);
    expect(instances?.precondition?.name).toBe('max-instances');
    expect(instances?.message).toMatch(/at most 2 occurrences and walks at most 5000 steps/);
    expect(refusal(new ExpansionBudget(limits), 'steps', 5000)).toBeUndefined();
    expect(refusal(new ExpansionBudget(limits), 'steps', 5001)?.status).toBe(403);
  });

  it('stops at its deadline and when its client has gone, at the next thousandth step', () => {
    const late = new ExpansionBudget({ ...limits, expandMs: 0 });
    expect(refusal(late, 'steps', 999)).toBeUndefined();
    expect(refusal(late, 'steps', 1)?.message).toMatch(/took longer than that/);
    const client = new AbortController();
    const gone = new ExpansionBudget(limits, client.signal);
    expect(refusal(gone, 'steps', 1500)).toBeUndefined();
    client.abort();
    expect(refusal(gone, 'steps', 1000)?.status).toBe(499);
  });
});
