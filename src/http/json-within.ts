// JSON text of an answer within a number of bytes. An answer's size is not the request's: one page
// of 50 events, each carrying 60 categories whose descriptions hold 64 KB, is 186 MB of JSON, and
// with `_embed` 527 MB, for an anonymous GET of a few dozen bytes. JSON.stringify would build the
// whole text first (or die at V8's longest string); this builds it a part at a time (the items of
// the top-level arrays and objects, two levels down) and stops at the first part past the budget,
// so that no more than the budget and one part is ever held.
import type { Application, Request } from 'express';

/** The answer would pass its budget (`bytes`): nothing of it was sent. */
export class AnswerTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`The answer would pass ${bytes} bytes.`);
  }
}

/**
 * The most an answer of this app holds (`RESPONSE_MAX_MB`), far above a real one: a page of 50 events
 * with all it embeds is about 1 MB.
 */
export function answerBudget(req: Request): number {
  return (req.app.locals as { answerMaxBytes?: number }).answerMaxBytes ?? DEFAULT_MAX_BYTES;
}

export function setAnswerBudget(app: Application, bytes: number) {
  (app.locals as { answerMaxBytes?: number }).answerMaxBytes = bytes;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

/** The JSON text of `value`, as JSON.stringify writes it, or AnswerTooLarge past `budget` characters. */
export function jsonWithin(value: unknown, budget: number): string {
  return written(value, { left: budget, budget }, 2) ?? 'null';
}

interface Room {
  left: number;
  budget: number;
}

function written(value: unknown, room: Room, depth: number): string | undefined {
  if (depth === 0 || value === null || typeof value !== 'object' || 'toJSON' in value) {
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined) charge(room, text.length);
    return text;
  }
  // A container's parts were charged as they were written; what it adds is charged after them.
  if (Array.isArray(value)) {
    const parts = value.map((item: unknown) => written(item, room, depth - 1) ?? charged(room, 'null'));
    charge(room, Math.max(parts.length + 1, 2)); // brackets and commas
    return `[${parts.join(',')}]`;
  }
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const text = written(item, room, depth - 1);
    if (text === undefined) continue;
    const name = JSON.stringify(key);
    charge(room, name.length + 2); // the name, its colon and a comma

    parts.push(`${name}:${text}`);
  }
  charge(room, parts.length ? 1 : 2); // braces, less the comma the last part did not need
  return `{${parts.join(',')}}`;
}

function charged(room: Room, text: string): string {
  charge(room, text.length);
  return text;
}

function charge(room: Room, characters: number) {
  room.left -= characters;
  if (room.left < 0) throw new AnswerTooLarge(room.budget);
}
