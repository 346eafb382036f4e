// One import: the items a source read, written one by one (write-item.ts), counted for the summary.
// A stop asked for (Ctrl-C) ends it between two items; what was written stays written and mapped,
// and the next run goes on from there.
import { withoutControlCharacters } from './clean-item.js';
import { type ImportItem, type ItemKind, KIND_ORDER, type Unreadable } from '../domain/external-items.js';
import { writeItem } from '../services/items/write-item.js';
import { bringImagesHome } from './images.js';
import type { ImportRun } from './import-run.js';

export type Result = 'created' | 'updated' | 'unchanged' | 'skipped';

export interface Summary {
  counts: Record<ItemKind, Record<Result, number>>;
  /** Each item not written, with why. */
  skipped: { kind: ItemKind; externalId: string; label: string; reason: string }[];
  /** Items imported before that the source no longer has (kept here). */
  deletedThere: { kind: ItemKind; externalId: string; localId: number; trashed?: true }[];
  /** What the reader could not do, and other things the user should know. */
  notes: string[];
  /** What was changed in items to take them (items.ts, ImportItem.remarks), by remark: how many, which. */
  remarks: Map<string, { count: number; examples: string[] }>;
  /** Items taken without a link they have there (items.ts, ImportItem.linksLeftOut), which are among the remarks. */
  partial: number;
  /**
   * Events taken that are cancelled there (of them, single dates of a series: `occurrences`),
   * postponed (a site of the modelled service: tec-status.ts), and online (of them, hybrid).
   */
  events: { cancelled: number; occurrences: number; postponed: number; online: number; hybrid: number };
  /** How many items were written or looked at (before a stop); ... */
  done: number;
  /** ... and how many the source announced (a site's lists may announce more than they hold). */
  total: number;
  stopped: boolean;
}

export interface Progress {
  /** More items to come: the total grows (a source that writes as it reads learns it as it goes). */
  expect(count: number): void;
  /** One item written or found unchanged, or skipped. */
  tick(label: string, skipped?: boolean): void;
  /** A line to show now (kept above a progress bar). */
  log(line: string): void;
  stop(): void;
}

export function emptySummary(): Summary {
  const zero = () => ({ created: 0, updated: 0, unchanged: 0, skipped: 0 });
  return {
    counts: { category: zero(), tag: zero(), venue: zero(), organizer: zero(), event: zero() },
    skipped: [],
    deletedThere: [],
    notes: [],
    remarks: new Map(),
    partial: 0,
    events: { cancelled: 0, occurrences: 0, postponed: 0, online: 0, hybrid: 0 },
    done: 0,
    total: 0,
    stopped: false,
  };
}

/** Where a source hands its items over, batch after batch, as it reads them. */
export interface Writer {
  /** `count` more items are to come (a list's announced size, a file's count): the progress's total. */
  expect(count: number): void;
  /** Items that could not be read: reported and counted as skipped. */
  skip(unreadable: Unreadable[]): void;
  /** Writes a batch; after a stop, writes nothing more (`summary.stopped`). */
  write(items: ImportItem[]): Promise<void>;
  /** The end of the run: the progress is closed. */
  finish(): void;
}

/**
 * A writer of items, each in its own transaction, until `stop` is aborted; a source writes what it
 * read before it reads on, so that only a batch is held at a time, however large the source. Within
 * a batch, kind after kind (items.ts, KIND_ORDER), `run.concurrency` at a time within a kind.
 * Categories go one at a time, in the order given (a parent before its children), and changed
 * occurrences after the series of their batch. Two items that carry the same new venue at once
 * both try to create it; the second finds the first's (write-item.ts).
 */
export function startWriting(run: ImportRun, summary: Summary, progress: Progress, stop: AbortSignal): Writer {
  const writing: ImportRun = { ...run, known: new Map(), ...(run.dryRun ? { planned: new Set<string>() } : {}) };
  return {
    expect(count) {
      summary.total += count;
      progress.expect(count);
    },
    skip(unreadable) {
      for (const item of unreadable) {
        summary.counts[item.kind].skipped++;
        summary.skipped.push({ ...item, label: '' });
        summary.done++;
        progress.tick('', true);
      }
    },
    async write(items) {
      for (const batch of batches(items)) {
        const queue = [...batch];
        const worker = async () => {
          for (let item = queue.shift(); item; item = queue.shift()) {
            if (stop.aborted) {
              summary.stopped = true;
              return;
            }
            await writeOne(writing, item, summary, progress);
          }
        };
        const width = batch[0].kind === 'category' ? 1 : Math.max(1, run.concurrency ?? 1);
        await Promise.all(Array.from({ length: Math.min(width, batch.length) }, worker));
        if (summary.stopped) return;
      }
    },
    finish() {
      progress.stop();
    },
  };
}

async function writeOne(run: ImportRun, given: ImportItem, summary: Summary, progress: Progress) {
  const { item, removed } = withoutControlCharacters(given);
  if (removed)
    remark(summary, item, 'control characters removed (PostgreSQL stores no NUL, RFC 5545 3.1 allows none but tab)');
  // Fetched before the item's transaction, which holds no lock while the network answers.
  await bringImagesHome(run, item);
  const { outcome, carried, remarks } = await writeItem(run, item);
  for (const text of new Set([...(item.remarks ?? []), ...remarks])) remark(summary, item, text);
  if (outcome.result !== 'skipped' && item.linksLeftOut?.length) {
    for (const text of item.linksLeftOut) remark(summary, item, text);
    summary.partial++;
  }
  if (outcome.result !== 'skipped') countEvent(summary, item);
  for (const inner of carried) summary.counts[inner.kind].created++;
  summary.counts[item.kind][outcome.result]++;
  if (outcome.result === 'skipped') {
    summary.skipped.push({ kind: item.kind, externalId: item.externalId, label: item.label, reason: outcome.reason });
    progress.log(`skipped ${item.kind} ${item.externalId} "${item.label}": ${outcome.reason}`);
  }
  summary.done++;
  progress.tick(item.label, outcome.result === 'skipped');
}

/** What the summary says of the events taken: how many are cancelled or postponed, and how many online. */
function countEvent(summary: Summary, item: ImportItem) {
  if (item.kind !== 'event') return;
  if (item.body.event_status === 'canceled') {
    summary.events.cancelled++;
    if (item.occurrenceOf) summary.events.occurrences++;
  }
  if (item.body.event_status === 'postponed') summary.events.postponed++;
  if (item.body.is_virtual === true) summary.events.online++;
  if (item.body.is_virtual === true && item.body.is_hybrid === true) summary.events.hybrid++;
}

/** Examples of items a remark is about that the summary names. */
const REMARK_EXAMPLES = 10;

function remark(summary: Summary, item: ImportItem, text: string) {
  const entry = summary.remarks.get(text) ?? { count: 0, examples: [] };
  entry.count++;
  if (entry.examples.length < REMARK_EXAMPLES) entry.examples.push(`${item.kind} ${item.externalId}`);
  summary.remarks.set(text, entry);
}

/** The items in the batches writeAll writes one after the other, each in the order given. */
function batches(items: ImportItem[]): ImportItem[][] {
  const phase = (item: ImportItem) => KIND_ORDER.indexOf(item.kind) * 2 + (item.occurrenceOf ? 1 : 0);
  const byPhase = new Map<number, ImportItem[]>();
  for (const item of items) {
    const batch = byPhase.get(phase(item));
    if (batch) batch.push(item);
    else byPhase.set(phase(item), [item]);
  }
  return [...byPhase.entries()].sort(([a], [b]) => a - b).map(([, batch]) => batch);
}

/** Text from the source as a terminal may show it: control characters (escape sequences) as `?`. */
export const printable = (text: string) =>
  Array.from(text, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 || (code >= 0x7f && code < 0xa0) ? '?' : c;
  }).join('');

/** Events were there, and not one of them could be taken. */
const nothingTaken = (summary: Summary) => {
  const events = summary.counts.event;
  return events.skipped > 0 && events.created + events.updated + events.unchanged === 0;
};

/**
 * The command's exit status: 0 everything taken; 3 done, some items skipped or taken without a link
 * (listed); 1 no event could be taken; 130 stopped.
 */
export function exitStatus(summary: Summary): number {
  if (summary.stopped) return 130;
  if (nothingTaken(summary)) return 1;
  return summary.partial > 0 || KIND_ORDER.some((kind) => summary.counts[kind].skipped > 0) ? 3 : 0;
}

/** The summary's first line: how the run ended, and how many items it took. */
function outcomeLine(summary: Summary, dryRun: boolean): string {
  const would = dryRun ? ' (dry run: nothing was written)' : '';
  const skipped = KIND_ORDER.reduce((sum, kind) => sum + summary.counts[kind].skipped, 0);
  const ofThem = `${skipped ? `, ${skipped} of them skipped` : ''}${summary.partial ? `, ${summary.partial} taken without a link they have there (see the notes)` : ''}`;
  if (summary.stopped) {
    return `Stopped after ${summary.done} of ${summary.total} items${ofThem}${would}; run the same command again to go on.`;
  }
  if (nothingTaken(summary))
    return `Nothing imported: all ${summary.counts.event.skipped} events were skipped${would}.`;
  return `Done: ${summary.done} items${ofThem}${would}.`;
}

/** How many of the events taken are cancelled, postponed, online; nothing when none is. */
function eventsLine({ cancelled, occurrences, postponed, online, hybrid }: Summary['events']): string | undefined {
  if (!cancelled && !postponed && !online) return undefined;
  const dates = occurrences ? ` (${occurrences} of them single dates of a series)` : '';
  // Postponed and hybrid only where a source has them (iCalendar has neither).
  const later = postponed ? `; postponed: ${postponed}` : '';
  const both = hybrid ? ` (${hybrid} of them hybrid)` : '';
  return `Events cancelled there: ${cancelled}${dates}${later}; online: ${online}${both}.`;
}

/** The summary as the lines the command ends with. */
export function summaryLines(summary: Summary, dryRun: boolean): string[] {
  const lines: string[] = [];
  lines.push(outcomeLine(summary, dryRun));
  const width = Math.max(...KIND_ORDER.map((kind) => kind.length));
  lines.push(`  ${''.padEnd(width)}  created  updated  unchanged  skipped`);
  for (const kind of KIND_ORDER) {
    const c = summary.counts[kind];
    lines.push(
      `  ${kind.padEnd(width)}  ${String(c.created).padStart(7)}  ${String(c.updated).padStart(7)}  ${String(c.unchanged).padStart(9)}  ${String(c.skipped).padStart(7)}`,
    );
  }
  const events = eventsLine(summary.events);
  if (events) lines.push(events);
  if (summary.skipped.length) {
    lines.push('Skipped:');
    for (const s of summary.skipped) {
      lines.push(printable(`  ${s.kind} ${s.externalId}${s.label ? ` "${s.label}"` : ''}: ${s.reason}`));
    }
  }
  if (summary.deletedThere.length) {
    lines.push('Deleted at the source since an earlier import (kept here):');
    for (const d of summary.deletedThere) {
      lines.push(
        printable(
          `  ${d.kind} ${d.externalId}${d.trashed ? ', in the trash there' : ''} (here: ${d.kind} ${d.localId})`,
        ),
      );
    }
  }
  for (const note of summary.notes) lines.push(printable(`Note: ${note}`));
  for (const [text, { count, examples }] of summary.remarks) {
    const more = count > examples.length ? `, and ${count - examples.length} more` : '';
    lines.push(printable(`Note: ${text}: ${count} item${count === 1 ? '' : 's'} (${examples.join(', ')}${more}).`));
  }
  return lines;
}
