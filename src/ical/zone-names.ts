// The IANA zone that a Windows time zone's display name stands for. Outlook and Exchange write
// TZIDs such as `(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`, often without a
// VTIMEZONE; older versions `(GMT+01.00) Amsterdam / Berlin / ...`. Such a name gives the zone's
// standard offset and either cities (found among the IANA zones' cities) or a region (`Eastern Time
// (US & Canada)`, found among the Windows zone IDs of CLDR's table, which windows-iana carries). A
// candidate counts only when its standard offset is the one written.
import { DateTime, IANAZone } from 'luxon';
import { IANA_ALIAS_MAP, WINDOWS_TO_IANA_MAP } from 'windows-iana';

// `(UTC+01:00)`, `(GMT-03.30)`, `(UTC)` at the start; the rest is read without expressions.
const OFFSET = /^\((?:UTC|GMT)(?:([+-])(\d{1,2})[:.](\d{2}))?\)/i;

/** Every IANA name known here, links included (ICU's canonical list has `Asia/Calcutta`, not `Asia/Kolkata`). */
const IANA_NAMES = [
  ...new Set([
    ...Intl.supportedValuesOf('timeZone'),
    ...Object.values(WINDOWS_TO_IANA_MAP).flatMap((entry) => entry.iana),
    ...Object.values(IANA_ALIAS_MAP).flatMap((entry) => entry.alias),
  ]),
];

/** The zones a display name may stand for, most likely first (none when it is not one). */
export function displayNameZones(tzid: string, year: number): string[] {
  const written = OFFSET.exec(tzid.trim());
  if (!written) return [];
  // at(): the offset's groups are optional (`(UTC)`)
  const offset = (written[1] === '-' ? -1 : 1) * (Number(written.at(2) ?? 0) * 60 + Number(written.at(3) ?? 0));
  const rest = tzid.trim().slice(written[0].length).trim();
  if (!rest) return [];
  const standard = (zone: string) => {
    // The standard offset is the smaller of winter's and summer's, in either hemisphere.
    const at = (month: number) => DateTime.fromObject({ year, month, day: 1 }, { zone }).offset;
    return Math.min(at(1), at(7));
  };
  const cities = new Set(
    rest
      .split(/[,/]/)
      .map((place) => place.trim().toLowerCase())
      .filter(Boolean),
  );
  const byCity = IANA_NAMES.filter((zone) =>
    cities.has(
      zone
        .slice(zone.lastIndexOf('/') + 1)
        .replaceAll('_', ' ')
        .toLowerCase(),
    ),
  );
  // `Eastern Time (US & Canada)` is Windows's `Eastern Standard Time`; `Coordinated Universal Time`, `UTC`.
  const region = (rest.endsWith(')') && rest.includes('(') ? rest.slice(0, rest.lastIndexOf('(')) : rest).trim();
  const ids = new Set([region, region.replace(/ Time$/, ' Standard Time')]);
  // CLDR's main zone of a Windows ID is its entry for the territory 001 (the world).
  const byRegion = Object.values(WINDOWS_TO_IANA_MAP)
    .filter((entry) => ids.has(entry.windowsName) && entry.territory === '001')
    .flatMap((entry) => entry.iana.slice(0, 1));
  const candidates = [...byCity, ...byRegion, ...(offset === 0 && /universal|utc/i.test(rest) ? ['UTC'] : [])];
  return [...new Set(candidates)].filter((zone) => IANAZone.isValidZone(zone) && standard(zone) === offset);
}
