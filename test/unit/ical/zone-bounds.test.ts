// The bounds a VTIMEZONE is read within (src/ical/zone-bounds.ts), checked on its properties
// alone, before ical.js expands it.
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { MAX_OBSERVANCES, MAX_ZONES, ZoneBudget, zoneRefusal } from '../../../src/ical/zone-bounds.js';

/** A VTIMEZONE of the observances, each a DTSTART and its RRULE (none: a single change). */
function zone(tzid: string, observances: [string, string?][]): ICAL.Component {
  const lines = observances.flatMap(([dtstart, rule], i) => [
    i % 2 ? 'BEGIN:DAYLIGHT' : 'BEGIN:STANDARD',
    `DTSTART:${dtstart}`,
    ...(rule ? [`RRULE:${rule}`] : []),
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    i % 2 ? 'END:DAYLIGHT' : 'END:STANDARD',
  ]);
  return new ICAL.Component(
    ICAL.parse(['BEGIN:VTIMEZONE', `TZID:${tzid}`, ...lines, 'END:VTIMEZONE'].join('\r\n')) as unknown[],
  );
}

const outlook = (tzid: string) =>
  zone(tzid, [
    ['16010101T030000', 'FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU'],
    ['16010101T020000', 'FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU'],
  ]);

describe('zoneRefusal', () => {
  it.each([
    ['Outlook', outlook('W. Europe Standard Time'), undefined],
    ['a monthly rule', zone('Monthly', [['19700101T000000', 'FREQ=MONTHLY;BYMONTHDAY=1']]), undefined],
    ['changes listed one by one', zone('Listed', [['19700101T000000'], ['19800101T000000']]), undefined],
    ['a daily rule', zone('Daily', [['20000101T000000', 'FREQ=DAILY']]), /repeats DAILY/],
    ['a secondly rule', zone('Secondly', [['20000101T000000', 'FREQ=SECONDLY']]), /repeats SECONDLY/],
    ['a start before 1600', zone('Old', [['10000101T000000', 'FREQ=YEARLY']]), /starts in 1000/],
    [
      'too many observances',
      zone(
        'Many',
        Array.from({ length: MAX_OBSERVANCES + 1 }, (_, i) => [`${1970 + i}0101T000000`] as [string]),
      ),
      /101 observances, more than the 100/,
    ],
    [
      'a monthly rule of every weekday from 1601',
      zone('Dense', [['16010101T000000', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU']]),
      /more than 20000 changes of offset up to 2100/,
    ],
  ])('%s', (_, component, refused) => {
    const why = zoneRefusal(component, new ZoneBudget());
    if (refused) expect(why).toMatch(refused);
    else expect(why).toBeUndefined();
  });

  it("counts one file's zones against one budget", () => {
    const budget = new ZoneBudget();
    // Each Outlook zone is 1,002 changes to 2100: 19 fit in 20,000.
    for (let i = 0; i < 19; i++) expect(zoneRefusal(outlook(`Zone ${i}`), budget)).toBeUndefined();
    expect(zoneRefusal(outlook('Zone 19'), budget)).toMatch(/Zone 19 is not read/);
    const many = new ZoneBudget();
    for (let i = 0; i < MAX_ZONES; i++) zoneRefusal(zone(`Z${i}`, [['19700101T000000']]), many);
    expect(zoneRefusal(zone('One more', [['19700101T000000']]), many)).toMatch(/more than 50 VTIMEZONEs/);
  });
});
