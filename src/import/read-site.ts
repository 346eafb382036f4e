// Reads a site of the modelled service (tec-source.ts) and hands each page to the writer before it
// reads the next, so that a run holds one page and the IDs it has seen, however large the site or
// whatever it claims (limits.ts). Its lists first, kind after kind (categories whole, to write each
// parent before its children); then the events WordPress lists that they do not show; then what an
// earlier run imported that they no longer show (hidden, out of reach, or deleted there).
import type { PrismaClient } from '../db/client.js';
import { Stopped } from './fetch-source.js';
import { type ImportItem, type ItemKind, KIND_ORDER, refKey } from '../domain/external-items.js';
import { mappedItemPages } from '../services/items/ledger.js';
import type { ImportLimits } from './limits.js';
import type { Progress, Summary, Writer } from './run-import.js';
import { type ListReading, newReading, type TecSite } from './site-lists.js';
import { parentsFirst } from './category-order.js';
import { readList, readOne } from './tec-source.js';
import { eventIdPages } from './wordpress-posts.js';

export interface SiteRun {
  site: TecSite;
  db: PrismaClient;
  source: string;
  limits: ImportLimits;
  writer: Writer;
  summary: Summary;
  progress: Progress;
  stop: AbortSignal;
}

/** Reads and writes the whole site; a stop asked for ends it at the next page or item (Stopped). */
export async function readSite(run: SiteRun): Promise<void> {
  const { writer, summary, limits } = run;
  const checkStop = () => {
    if (run.stop.aborted) throw new Stopped();
  };
  const lists = new Map<ItemKind, ListReading>();
  for (const kind of KIND_ORDER) {
    const list = newReading();
    lists.set(kind, list);
    const categories: ImportItem[] = [];
    const onPage = (page: number, pages: number) => {
      if (page === 1) writer.expect(Math.min(list.announced ?? 0, limits.maxItems));
      if (page === pages || page % 10 === 0) run.progress.log(`read ${kind} lists: page ${page} of ${pages}`);
    };
    for await (const { items, unreadable } of readList(run.site, kind, limits, list, onPage)) {
      checkStop();
      writer.skip(unreadable);
      if (kind === 'category') categories.push(...items);
      else await writer.write(withoutLostTerms(items, summary));
    }
    if (kind === 'category') await writer.write(parentsFirst(categories));
    checkStop();
    if (list.cutShort) summary.notes.push(list.cutShort);
  }
  await readUnlistedEvents(run, lists.get('event') ?? newReading(), checkStop);
  await checkImportedBefore(run, lists, checkStop);
  if (run.site.posts.unavailable) {
    summary.notes.push(
      `WordPress's records of the events could not be read (${run.site.posts.unavailable}): costs, websites and drafts' dates were taken from the plugin's answers.`,
    );
  }
}

/** Events the lists never show (hidden ones), by WordPress's own list of their IDs. */
async function readUnlistedEvents(run: SiteRun, events: ListReading, checkStop: () => void) {
  const posts: ListReading & { unavailable?: string } = newReading();
  for await (const ids of eventIdPages(run.site, run.limits, posts)) {
    const unlisted = ids.filter((id) => !events.ids.has(id));
    if (!unlisted.length) continue;
    run.progress.log(`reading ${unlisted.length} events that the lists do not show`);
    run.writer.expect(unlisted.length);
    const found: ImportItem[] = [];
    for (const externalId of unlisted) {
      checkStop();
      events.ids.add(externalId);
      const one = await readOne(run.site, 'event', externalId, run.limits);
      if ('found' in one) found.push(one.found);
      else if ('hidden' in one) run.writer.skip([{ kind: 'event', externalId, reason: one.hidden }]);
      else if ('reason' in one) run.writer.skip([one]);
    }
    await run.writer.write(withoutLostTerms(found, run.summary));
    checkStop();
  }
  if (posts.unavailable) {
    run.summary.notes.push(
      `events hidden from listings could not be looked for (${posts.unavailable}); only those imported before are checked.`,
    );
  }
  if (posts.cutShort) run.summary.notes.push(posts.cutShort);
}

/**
 * What an earlier run imported and the lists did not show, read one by one: found, it is written;
 * gone, it is reported as deleted there. A list cut short (a bound, a repeated page) may hold it
 * further on: its kind is not checked, and the summary says so.
 */
async function checkImportedBefore(run: SiteRun, lists: Map<ItemKind, ListReading>, checkStop: () => void) {
  const unchecked = new Map<ItemKind, number>();
  let told = false;
  for await (const page of mappedItemPages(run.db, run.source)) {
    const found: ImportItem[] = [];
    for (const mapped of page) {
      const kind = mapped.kind as ItemKind;
      const list = lists.get(kind);
      if (!list || list.ids.has(mapped.externalId)) continue;
      if (list.cutShort) {
        unchecked.set(kind, (unchecked.get(kind) ?? 0) + 1);
        continue;
      }
      if (!told) run.progress.log('checking the items imported before that the lists do not show');
      told = true;
      checkStop();
      list.ids.add(mapped.externalId);
      const one = await readOne(run.site, kind, mapped.externalId, run.limits);
      if ('found' in one) found.push(one.found);
      else if ('gone' in one)
        run.summary.deletedThere.push({
          kind,
          externalId: mapped.externalId,
          localId: mapped.localId,
          ...(one.gone === 'trashed' ? { trashed: true } : {}),
        });
      else run.writer.skip(['hidden' in one ? { kind, externalId: mapped.externalId, reason: one.hidden } : one]);
    }
    run.writer.expect(found.length);
    await run.writer.write(withoutLostTerms(found, run.summary));
    checkStop();
  }
  for (const [kind, count] of unchecked) {
    run.summary.notes.push(
      `${count} ${kind} items imported before were not looked for, as the ${kind} list was not read to its end.`,
    );
  }
}

/**
 * The items with their links to the categories and tags this run could not take (skipped, listed)
 * left out, each said: an event comes without the term rather than not at all.
 */
function withoutLostTerms(items: ImportItem[], summary: Summary): ImportItem[] {
  const lost = new Set(summary.skipped.filter((s) => s.kind === 'category' || s.kind === 'tag').map((s) => refKey(s)));
  if (!lost.size) return items;
  for (const item of items) {
    for (const ref of item.refs) {
      const kept = ref.items.filter((named) => !lost.has(refKey(named)));
      if (kept.length === ref.items.length) continue;
      ref.items = kept;
      (item.linksLeftOut ??= []).push(`${ref.field}: one it names was skipped (listed above): imported without it`);
    }
  }
  return items;
}
