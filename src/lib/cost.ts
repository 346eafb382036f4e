// An event's free-form cost (a string, a number or a list of them) read as the modelled service reads it
// (docs/decisions.md, "Cost"; reference tec-rest-v1.md parts 1.1, 4.3 and 9.4, and the samples). In short:
// - a comma or period directly between digits belongs to the amount ("12,50", "1,234.50"); any other
//   comma separates entries, and within an entry every other character (space, dash, word) separates amounts;
// - the currency symbol and position are the event's only when every entry holding an amount holds exactly one,
//   with the same symbol on the same side ("10 – 25$" has none: reference 9.4); otherwise the amounts are shown
//   with the site's default symbol and position (the plugin's defaults: `$` before the amount);
// - an amount of 0 shows as "Free"; a cost of exactly 0 or "0" is no cost at all (reference 9.4).
export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: '' | 'prefix' | 'postfix';
  values: string[];
}

export interface Cost {
  cost: string;
  cost_details: CostDetails;
  /** The symbol the amounts are shown with: the event's own, else the site's default. */
  displaySymbol: string;
}

/** The site's currency settings (COST_CURRENCY_SYMBOL, COST_CURRENCY_POSITION). */
export interface CurrencySettings {
  symbol: string;
  position: 'prefix' | 'suffix';
}

/** The modelled plugin's defaults: the samples show symbol-less amounts as "$5" and "$10 – $25". */
export const DEFAULT_CURRENCY: CurrencySettings = { symbol: '$', position: 'prefix' };

export type CostInput = string | number | (string | number)[] | null | undefined;

/** One amount as written ("12,50") and read (12.5, normalized "12.50"). */
interface Amount {
  text: string;
  value: number;
  normalized: string;
}

/** One entry: an array item, or a part of a string between separating commas. */
interface Entry {
  text: string;
  amounts: Amount[];
  /** Set when the entry holds exactly one amount with text on one side of it only. */
  symbol?: { symbol: string; position: 'prefix' | 'postfix' };
}

export function parseCost(input: CostInput, currency: CurrencySettings = DEFAULT_CURRENCY): Cost {
  const entries = costEntries(input).map(readEntry);
  const own = commonSymbol(entries);
  const symbol = own?.symbol ?? currency.symbol;
  const position = own?.position ?? (currency.position === 'suffix' ? 'postfix' : 'prefix');
  const amounts = distinctAmounts(entries);
  const labels = entries.filter((e) => e.amounts.length === 0).map((e) => e.text);
  return {
    cost: display(amounts, labels, (amount) => formatAmount(amount, symbol, position)),
    cost_details: {
      currency_symbol: own?.symbol ?? '',
      currency_code: '',
      currency_position: own?.position ?? '',
      values: sortedValues(amounts, labels),
    },
    displaySymbol: symbol,
  };
}

/**
 * The entries of a cost. The plugin stores nothing for a cost that PHP finds empty, which 0 and "0" are
 * (reference 9.4: "a cost of 0 is not stored at all"); "0.00", "0$" and [0] are stored and show as Free.
 */
export function costEntries(input: CostInput): string[] {
  if (input === null || input === undefined || input === 0 || input === '0') return [];
  // The column is JSON: whatever it holds that is not a number is read as text.
  const items = Array.isArray(input) ? input.map(plain) : plain(input).split(ENTRY_SEPARATOR);
  return items.map((item) => item.trim()).filter(Boolean);
}

/**
 * A value as text; a number in plain digits, as PHP prints a float (String(1e21) is "1e+21", which
 * read as text is the range 1 to 21).
 */
const plain = (value: unknown) => (typeof value === 'number' ? PLAIN_DIGITS.format(value) : String(value));

// What `toLocaleString('en-US', options)` writes, with one formatter: toLocaleString builds one on
// every call, a sixth of a single event's serialization (docs/performance.md, "Built answers: the levers").
const PLAIN_DIGITS = new Intl.NumberFormat('en-US', { useGrouping: false, maximumFractionDigits: 20 });

/**
 * A comma splits entries unless it stands between two digits: there it is a decimal comma or a thousands
 * separator ("€12,50" is one price, "1,234" one amount). The plugin's amount pattern keeps such commas in
 * the number; reference 4.3 says a comma splits values ("10,50" a range), which holds for "10, 50" but not
 * for the plugin's reading of "10,50" (one amount, 10.50): we follow the plugin's pattern (inferred).
 */
const ENTRY_SEPARATOR = /(?<!\d),|,(?!\d)/u;

/**
 * An amount: digits, with single commas or periods between digit groups, and an optional leading period
 * (".50"). One way to match any text, so the time stays linear.
 */
const AMOUNT = /\.?\d+(?:[.,]\d+)*/gu;

function readEntry(text: string): Entry {
  const amounts = [...text.matchAll(AMOUNT)].flatMap((match) => {
    const amount = readAmount(match[0]);
    return amount ? [amount] : [];
  });
  return { text, amounts, symbol: amounts.length === 1 ? symbolAround(text, amounts[0].text) : undefined };
}

/**
 * The currency text around an entry's only amount, trimmed ("$12", "12 €", "USD 5"). Text on both sides
 * gives none: the plugin finds no position for it, so no symbol either (inferred).
 */
function symbolAround(text: string, amount: string): Entry['symbol'] {
  const at = text.indexOf(amount);
  const before = text.slice(0, at).trim();
  const after = text.slice(at + amount.length).trim();
  if (before && after) return undefined;
  // A stray separator ("5.", "1.5.") is no currency symbol.
  if (/^[.,]+$/.test(before || after)) return undefined;
  if (before) return { symbol: before, position: 'prefix' };
  if (after) return { symbol: after, position: 'postfix' };
  return undefined;
}

/**
 * The symbol of the event when all entries with amounts agree on it (reference 4.3). An entry with several
 * amounts ("10 – 25$", "5$ – 8$") or none beside its amount spoils it: live, both give an empty symbol and
 * position (reference 9.4, samples event-get.json and event-update.json). Labels do not count.
 */
function commonSymbol(entries: Entry[]): Entry['symbol'] {
  const priced = entries.filter((e) => e.amounts.length > 0);
  const first = priced[0]?.symbol;
  if (!first) return undefined;
  const agree = priced.every((e) => e.symbol?.symbol === first.symbol && e.symbol.position === first.position);
  return agree ? first : undefined;
}

/**
 * "12,50" to 12.5. The plugin guesses the separators per amount (with its default locale, en_US): with
 * both kinds, the last one is the decimal separator; with one kind once, it is the decimal separator
 * unless exactly three digits follow, where the locale decides (a comma groups thousands, a period is
 * decimal: "1,234" is 1234, "1.234" is 1.234). One kind several times groups thousands ("1.234.567";
 * the plugin cannot read that, inferred).
 */
function readAmount(text: string): Amount | undefined {
  const separators = text.match(SEPARATORS) ?? [];
  const last = separators.at(-1) ?? '';
  let decimal = '';
  if (new Set(separators).size === 2) decimal = last;
  else if (separators.length === 1) decimal = text.length - text.indexOf(last) - 1 === 3 ? '.' : last;
  // Two decimal separators ("1.2.3,4") make no amount; an entry left without one is a label (inferred).
  if (decimal && text.split(decimal).length > 2) return undefined;
  const normalized = text.replace(SEPARATORS, (c) => (c === decimal ? '.' : ''));
  const value = Number(normalized);
  if (!Number.isFinite(value)) return undefined;
  return { text, value, normalized: normalized.startsWith('.') ? `0${normalized}` : normalized };
}

const SEPARATORS = /[.,]/gu;

/** One amount per value: the plugin keys amounts by their number, the first written form stays. */
function distinctAmounts(entries: Entry[]): Amount[] {
  const byValue = new Map<number, Amount>();
  for (const amount of entries.flatMap((e) => e.amounts))
    if (!byValue.has(amount.value)) byValue.set(amount.value, amount);
  return [...byValue.values()].sort((a, b) => a.value - b.value);
}

/** What shows in `cost`: one amount, or the lowest and highest as a range; else the labels as written. */
function display(amounts: Amount[], labels: string[], format: (amount: Amount) => string): string {
  if (amounts.length === 0) return labels.join(', ');
  const [low, high] = [amounts[0], amounts[amounts.length - 1]];
  return low === high ? format(low) : `${format(low)} – ${format(high)}`;
}

/** The plugin writes the amount as given, with the symbol stuck to it; what rounds to 0.00 is Free. */
function formatAmount(amount: Amount, symbol: string, position: 'prefix' | 'postfix'): string {
  if (Math.round(amount.value * 100) === 0) return 'Free';
  return position === 'prefix' ? `${symbol}${amount.text}` : `${amount.text}${symbol}`;
}

/**
 * `values`: amounts as normalized numbers, labels as the plugin's keys for them (WordPress titles made
 * slugs: "Free" is "free", reference 9.4), sorted numerically as PHP does, where a label counts as 0
 * and ties keep amounts first (inferred).
 */
function sortedValues(amounts: Amount[], labels: string[]): string[] {
  const slugs = [...new Set(labels.map(labelKey))];
  const atOrBelowZero = amounts.filter((a) => a.value <= 0).map((a) => a.normalized);
  const aboveZero = amounts.filter((a) => a.value > 0).map((a) => a.normalized);
  return [...atOrBelowZero, ...slugs, ...aboveZero];
}

/** A label as WordPress makes a title a slug, near enough: lower case, no accents, words joined by dashes. */
function labelKey(label: string): string {
  const slug = label
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(NOT_SLUG, ' ')
    .trim()
    .split(SPACES)
    .join('-');
  return slug || label.toLowerCase();
}

const COMBINING_MARKS = /\p{M}/gu;
const NOT_SLUG = /[^a-z0-9_]+/gu;
const SPACES = /\s+/u;
