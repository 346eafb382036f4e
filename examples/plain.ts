// What an answer is when the request sent neither `_fields` nor `_envelope`. The document says that an
// operation taking them may also answer a part of its object (every field optional) or an envelope
// (scripts/lib/reshaped-answers.mjs), so a generated client types each answer as one of the three; a
// client that never sends them narrows the type once, here, instead of at every use.
import type { components } from '../generated/api.js';

type Envelope = components['schemas']['Enveloped'];

/** `T` without its reshaped forms: a part accepts any object, an envelope has a numeric status. */
export type Plain<T> = T extends unknown ? (object extends T ? never : T extends Envelope ? never : T) : never;

export const plain = <T>(data: T): Plain<T> => data as Plain<T>;
