// The public pages that events', venues' and organizers' `url`s name: what a person following a link
// sees, with the object's schema.org JSON-LD for search engines and, for an event, a link that adds
// it to a calendar. Descriptions are shown as text (lib/plain-text.ts): stored HTML is never
// rendered, so no one's markup runs in a visitor's browser.
import { DateTime } from 'luxon';
import type { components } from '../../generated/api.js';
import { plainText } from '../lib/plain-text.js';
import { jsonInScript, page, text } from './html.js';
import { PAGE_TEXTS, type PageLanguage, type PageTexts } from './texts.js';

type Event = components['schemas']['Event'];
type Venue = components['schemas']['Venue'];
type Organizer = components['schemas']['Organizer'];

const paragraphs = (html: string) =>
  plainText(html)
    .split(/\n{2,}/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => `<p>${text(part).replaceAll('\n', '<br>')}</p>`)
    .join('\n');

const link = (href: string, label: string) => `<a href="${text(href)}">${text(label)}</a>`;

const jsonLd = (data: unknown) => `<script type="application/ld+json">${jsonInScript(data)}</script>`;

/** When an event happens, in its own zone: a `<time>` a machine can read and a person too. */
function when(event: Event, lang: PageLanguage): string {
  const zone = event.timezone;
  const start = DateTime.fromSQL(event.start_date, { zone });
  const end = DateTime.fromSQL(event.end_date, { zone });
  // The zone's short name follows in brackets; the long one would say it twice.
  const format = event.all_day
    ? DateTime.DATE_HUGE
    : { ...DateTime.DATE_HUGE, hour: 'numeric' as const, minute: '2-digit' as const };
  const endText = endWritten(end, format, { allDay: event.all_day, sameDay: start.hasSame(end, 'day'), lang });
  const startTime = `<time datetime="${text(start.toISO() ?? '')}">${text(start.toLocaleString(format, { locale: lang }))}</time>`;
  const endTime = endText ? ` – <time datetime="${text(end.toISO() ?? '')}">${text(endText)}</time>` : '';
  return `${startTime}${endTime}${event.all_day ? '' : ` (${text(event.timezone_abbr || event.timezone)})`}`;
}

/** The end as written after the start: the time alone on the same day, nothing for an all-day event of one day. */
function endWritten(
  end: DateTime,
  format: Intl.DateTimeFormatOptions,
  { allDay, sameDay, lang }: { allDay: boolean; sameDay: boolean; lang: PageLanguage },
): string {
  if (!allDay) return end.toLocaleString(sameDay ? DateTime.TIME_SIMPLE : format, { locale: lang });
  return sameDay ? '' : end.toLocaleString(format, { locale: lang });
}

/** What a cancelled or postponed event says under its title; nothing for one that happens as announced. */
const statusWord = (event: Event, t: PageTexts) => (event.event_status === 'scheduled' ? '' : t[event.event_status]);

/**
 * The event's status and its reason, as a paragraph right below the title (read after it, and
 * styled apart), with the status as a word that needs no colour to be understood.
 */
function statusNotice(event: Event, t: PageTexts): string {
  const word = statusWord(event, t);
  if (!word) return '';
  const reason = event.event_status_reason ? ` ${text(event.event_status_reason)}` : '';
  return `<p class="status status-${event.event_status}"><strong>${text(word)}.</strong>${reason}</p>`;
}

/**
 * Where to join an online event. The link shows on the event's own page only, which only those who
 * may read the event reach (routes.ts): lists of events show none.
 */
function online(event: Event, t: PageTexts): string {
  if (!event.is_virtual) return '';
  return event.virtual_url ? link(event.virtual_url, t.joinOnline) : text(t.noLinkYet);
}

function address(venue: Venue): string {
  const region = [venue.stateprovince ?? venue.state ?? venue.province, venue.zip].filter(Boolean).join(' ');
  return [venue.address, venue.city, region, venue.country].filter(Boolean).join(', ');
}

export function eventPage(event: Event, lang: PageLanguage): string {
  const t = PAGE_TEXTS[lang];
  const venues = Array.isArray(event.venue) ? event.venue : [event.venue];
  const terms = [...event.categories, ...event.tags].map((term) => term.name);
  const details = [
    [t.when, when(event, lang)],
    [
      t.where,
      venues
        .map((venue) => [link(venue.url, venue.venue ?? ''), address(venue)].filter(Boolean).join(', '))
        .join('<br>'),
    ],
    [t.online, online(event, t)],
    [t.organizedBy, event.organizer.map((organizer) => link(organizer.url, organizer.organizer ?? '')).join(', ')],
    [t.cost, text(event.cost)],
    [t.filedUnder, text(terms.join(', '))],
  ].filter(([, value]) => value);
  // An uploaded image's large size where it has one: the page shows it at most 42rem wide.
  const sizes =
    typeof event.image === 'object' ? ((event.image.sizes ?? {}) as Partial<Record<string, { url: string }>>) : {};
  const image =
    typeof event.image === 'object' ? `<img src="${text(sizes.large?.url ?? event.image.url)}" alt="">` : '';
  const body = `<article>
<h1>${text(event.title)}</h1>
${statusNotice(event, t)}
${image}
<dl>
${details.map(([term, value]) => `<dt>${text(term)}</dt><dd>${value}</dd>`).join('\n')}
</dl>
${paragraphs(event.description)}
<p class="actions">${link(`${event.rest_url}.ics`, t.addToCalendar)}${link(event.rest_url, t.eventAsJson)}</p>
</article>`;
  return page(lang, event.title, body, event.json_ld ? jsonLd(event.json_ld) : '');
}

/** A cancelled or postponed event in a list: the word after its title. */
const listedStatus = (event: Event, t: PageTexts) => {
  const word = statusWord(event, t);
  return word ? ` (${text(word)})` : '';
};

function placeName(item: Venue | Organizer): string {
  if ('venue' in item) return item.venue ?? '';
  return 'organizer' in item ? (item.organizer ?? '') : '';
}

/** A venue's or organizer's page: what it is, how to reach it, and the events linked to it that are to come. */
export function placePage(
  item: Venue | Organizer,
  kind: 'venue' | 'organizer',
  upcoming: Event[],
  lang: PageLanguage,
): string {
  const t = PAGE_TEXTS[lang];
  const name = placeName(item);
  const venue = kind === 'venue' ? (item as Venue) : undefined;
  const contact = [
    [t.address, venue ? text(address(venue)) : ''],
    [t.phone, text(item.phone ?? '')],
    [t.email, 'email' in item && item.email ? link(`mailto:${item.email}`, item.email) : ''],
    [t.website, item.website ? link(item.website, item.website) : ''],
  ].filter(([, value]) => value);
  const events = upcoming.length
    ? `<ul>\n${upcoming.map((event) => `<li>${link(event.url, event.title)}${listedStatus(event, t)}, ${when(event, lang)}</li>`).join('\n')}\n</ul>`
    : `<p>${text(t.noEventsToCome)}</p>`;
  const body = `<article>
<h1>${text(name)}</h1>
${contact.length ? `<dl>\n${contact.map(([term, value]) => `<dt>${text(term)}</dt><dd>${value}</dd>`).join('\n')}\n</dl>` : ''}
${paragraphs(item.description ?? '')}
<h2>${text(t.eventsToCome)}</h2>
${events}
<p class="actions">${link(item.rest_url, kind === 'venue' ? t.venueAsJson : t.organizerAsJson)}</p>
</article>`;
  return page(lang, name, body, item.json_ld ? jsonLd(item.json_ld) : '');
}

/** The page for a name that leads nowhere (or to something not public). */
export function notFoundPage(lang: PageLanguage): string {
  const t = PAGE_TEXTS[lang];
  return page(lang, t.notFound, `<h1>${text(t.notFound)}</h1>\n<p>${text(t.notFoundText)}</p>`);
}
