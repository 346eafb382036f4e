// What a walk of a rule costs (recurrence/cost.ts densityOf, tooCostly, ruleCost), worked out from
// the calendar, whether ical.js walks it as rrule does (walkProblem), and the budget of a CalDAV
// expansion (caldav/query.ts ExpansionBudget): its steps, its deadline and its client, each
// checked every step.
import { describe, expect, it } from 'vitest';
import { DavError } from '../../src/caldav/errors.js';
import { ExpansionBudget } from '../../src/caldav/query.js';
import { densityOf, MAX_STEPS_PER_START, ruleCost } from '../../src/recurrence/cost.js';
import { walkProblem } from '../../src/recurrence/walk-problem.js';

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

  it('refuses an INTERVAL whose one step is too long a walk, naming its limit', () => {
    expect(ruleCost('FREQ=WEEKLY;INTERVAL=999999;BYMONTH=1')).toMatch(/INTERVAL of a WEEKLY rule may be at most 522/);
    expect(ruleCost('FREQ=YEARLY;INTERVAL=999999')).toMatch(/INTERVAL of a YEARLY rule may be at most 100/);
    expect(ruleCost('FREQ=WEEKLY;INTERVAL=522;BYMONTH=1')).toBeUndefined();
    expect(ruleCost('FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29')).toBeUndefined();
  });

  it('counts the steps of an INTERVAL walk from its start, which lands on the days its BY parts allow more rarely', () => {
    const from2020 = new Date('2020-01-01T10:00:00Z');
    // Every 366 days lands on a 29 February once in some 2,000 steps, not every 1,461 / 366.
    const rare = 'FREQ=DAILY;INTERVAL=366;BYMONTH=2;BYMONTHDAY=29';
    expect(densityOf(parts(rare), from2020)).toEqual({ longest: 2411, mean: 2029.125 });
    expect(ruleCost(rare, from2020)).toBeUndefined();
    expect(ruleCost('FREQ=DAILY;INTERVAL=1000;BYMONTH=2;BYMONTHDAY=29', from2020)).toMatch(
      /too rare to expand: up to 3163 steps/,
    );
    expect(densityOf(parts('FREQ=DAILY;INTERVAL=2;BYDAY=MO'), from2020)).toEqual({ longest: 7, mean: 7 });
  });
});

describe('what ical.js can walk', () => {
  const from = new Date('2001-03-01T10:00:00Z');
  it.each([
    ['FREQ=YEARLY;BYYEARDAY=60;BYMONTH=3', /ical.js cannot walk the rule: Invalid BYYEARDAY rule/],
    ['FREQ=YEARLY;BYYEARDAY=1;BYMONTHDAY=1', /ical.js cannot walk the rule: Invalid BYYEARDAY rule/],
    ['FREQ=WEEKLY;BYMONTHDAY=1', /RFC 5545 does not allow BYMONTHDAY in a WEEKLY rule/],
    ['FREQ=MONTHLY;BYYEARDAY=1', /RFC 5545 does not allow BYYEARDAY in a MONTHLY rule/],
    // A leap day every four years from a year that is not a leap year never occurs; ical.js made up 1 March.
    [
      'FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29',
      /disagree on its starts after the first \(none or 20050301T100000/,
    ],
  ])('%s is refused', (rule, why) => {
    expect(walkProblem(rule, from)).toMatch(why);
  });

  it.each([
    ['FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29', '2004-02-29T10:00:00Z'],
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR', '2026-01-05T19:00:00Z'],
    ['FREQ=MONTHLY;BYDAY=-1FR;COUNT=10', '2026-01-30T19:00:00Z'],
    ['FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-1', '2026-01-27T19:00:00Z'],
  ])('%s from %s is walked alike', (rule, start) => {
    expect(walkProblem(rule, new Date(start))).toBeUndefined();
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

  it('stops at its deadline and when its client has gone, at the next step', () => {
    const late = new ExpansionBudget({ ...limits, expandMs: -1 });
    expect(refusal(late, 'steps', 1)?.message).toMatch(/took longer than that/);
    const client = new AbortController();
    const gone = new ExpansionBudget(limits, client.signal);
    expect(refusal(gone, 'steps', 1500)).toBeUndefined();
    client.abort();
    expect(refusal(gone, 'steps', 1)?.status).toBe(499);
  });
});
