// The bytes of an iCalendar file as UTF-8, which RFC 5545 (3.1.4) requires and the reader
// (blocks.ts, read-event.ts) assumes. Real files are not always so: older Outlook and Lotus
// exports are Windows-1252 or ISO-8859-1, some Outlook saves are UTF-16 with a byte order mark.
// Such a file is converted, honouring the charset its server declared (Content-Type), else the one
// chardet finds, and the summary says so; read as UTF-8, "Två" would become "Tv\uFFFD" unnoticed.
import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';

/** How much of a file chardet looks at: enough text to tell the encodings apart, at a bounded cost. */
const SAMPLE_BYTES = 1 << 20;

export interface Utf8File {
  bytes: Uint8Array;
  /** Set when the file was converted: what to tell the user. */
  note?: string;
}

/**
 * The file as UTF-8. A UTF-16 file (byte order mark) is converted before its lines are unfolded
 * (its line breaks are two bytes each); any other after (blocks.ts unfolds the bytes, and a
 * fold may split a UTF-8 character, which is only valid UTF-8 once unfolded).
 */
export const isUtf16 = (bytes: Uint8Array) => bomEncoding(bytes) !== undefined;

export function asUtf8(bytes: Uint8Array, declared?: string): Utf8File {
  const utf16 = bomEncoding(bytes);
  if (!utf16 && isUtf8(bytes)) return { bytes };
  const given = declared && !/^utf-?8$/i.test(declared) ? decoderFor(declared) : undefined;
  const detected = utf16 ?? chardet.detect(bytes.subarray(0, SAMPLE_BYTES)) ?? '';
  const by = utf16 ? 'its byte order mark' : 'chardet';
  // An invalid UTF-8 file that chardet still calls UTF-8 is most likely Windows-1252 with a few
  // stray bytes: every byte means something there.
  const found = /^utf-?8$/i.test(detected) ? undefined : decoderFor(detected);
  const [label, how] = chosenEncoding(given, declared, found, by);
  const text = new TextDecoder(label).decode(bytes);
  return {
    bytes: Buffer.from(text, 'utf8'),
    note: `The file is not UTF-8 (RFC 5545 3.1.4 asks for it): it was read as ${label} (${how}) and converted.`,
  };
}

/** The encoding to read the file as, and how it was chosen: as its server declared, else as found, else assumed. */
function chosenEncoding(
  given: string | undefined,
  declared: string | undefined,
  found: string | undefined,
  by: string,
): [string, string] {
  if (given) return [given, `declared by its server as ${declared}`];
  if (found) return [found, `found by ${by}`];
  return ['windows-1252', 'assumed'];
}

/** A UTF-16 byte order mark's encoding (UTF-8's mark is taken by the reader). */
function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** The WHATWG name of an encoding TextDecoder knows (Node's full ICU), or undefined. */
function decoderFor(name: string): string | undefined {
  if (!name) return undefined;
  try {
    return new TextDecoder(name.trim().toLowerCase()).encoding;
  } catch {
    return undefined;
  }
}
