// An event's free-form cost (a string, a number or a list of them) read as the modelled service reads it
// (docs/decisions.md, "Cost"): commas and dashes separate values, a currency symbol before or after the numbers
// counts when every value that has one agrees, 0 is "Free", and words stay as labels.
export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: '' | 'prefix' | 'postfix';
  values: string[];
}

export interface Cost {
  cost: string;
  cost_details: CostDetails;
}

export type CostInput = string | number | (string | number)[] | null | undefined;

// Between values: a comma, an en or em dash, or a hyphen between two amounts. The pieces are
// trimmed afterwards, so the separator does not take the spaces around it (a leading and trailing
// `\s*` made its time grow with the square of a run of spaces).
const SEPARATOR = /,|[–—]|\s-\s|(?<=\d)\s*-(?=\s*\D{0,3}\d)/u;

interface Entry {
  amount?: number;
  label: string;
  symbol: string;
  position: '' | 'prefix' | 'postfix';
}

export function parseCost(input: CostInput): Cost {
  const pieces = (input === null || input === undefined ? [] : Array.isArray(input) ? input : [input])
    // The column is JSON: whatever it holds that is not a number is read as text.
    .flatMap((item: unknown) => (typeof item === 'number' ? [String(item)] : String(item).split(SEPARATOR)))
    .map((piece) => piece.trim())
    .filter(Boolean);
  const entries = pieces.map(readEntry);

  const symbols = new Set(
    entries.filter((e) => e.amount !== undefined && e.symbol).map((e) => `${e.position}\u0000${e.symbol}`),
  );
  const [position, symbol] =
    symbols.size === 1
      ? ([...symbols][0].split('\u0000') as [CostDetails['currency_position'], string])
      : (['', ''] as const);

  const amounts = entries.flatMap((e) => (e.amount === undefined ? [] : [e.amount])).sort((a, b) => a - b);
  const labels = entries.filter((e) => e.amount === undefined).map((e) => e.label);
  const format = (n: number) =>
    n === 0 ? 'Free' : position === 'prefix' ? `${symbol}${n}` : position === 'postfix' ? `${n}${symbol}` : String(n);

  let cost = '';
  if (amounts.length) {
    const [low, high] = [amounts[0], amounts[amounts.length - 1]];
    cost = low === high ? format(low) : `${format(low)} – ${format(high)}`;
  } else if (labels.length) {
    cost = labels.join(', ');
  }
  return {
    cost,
    cost_details: {
      currency_symbol: symbol,
      currency_code: '',
      currency_position: position,
      values: [...new Set([...amounts.map(String), ...labels.map((l) => l.toLowerCase())])],
    },
  };
}

/**
 * An amount with at most five characters of currency before or after it ("$12", "12 €", "EUR 5"),
 * else a label. Read in one pass: a pattern whose number and spaces overlapped backtracked over long
 * runs of spaces.
 */
function readEntry(piece: string): Entry {
  const label: Entry = { label: piece, symbol: '', position: '' };
  let i = 0;
  while (i < piece.length && !NUMERIC.test(piece[i])) i++;
  const before = piece.slice(0, i);
  while (i < piece.length && SPACE.test(piece[i])) i++;
  if (before.length > 5 || !DIGIT.test(piece[i] ?? '')) return label;
  const start = i;
  while (i < piece.length && NUMERIC.test(piece[i])) i++;
  const after = piece.slice(i);
  if (after.length > 5 || NUMERIC_ANYWHERE.test(after)) return label;
  const amount = toNumber(piece.slice(start, i));
  if (amount === undefined) return label;
  const symbol = before || after;
  return { amount, label: piece, symbol, position: before ? 'prefix' : after ? 'postfix' : '' };
}

const NUMERIC = /^[\d\s.]$/u;
const NUMERIC_ANYWHERE = /[\d\s.]/u;
const SPACE = /^\s$/u;
const DIGIT = /^\d$/;

/** "1 234.50", "1.234" (thousands), "12.5" to a number; undefined when it is not one. */
function toNumber(text: string): number | undefined {
  const compact = text.replace(/\s/g, '');
  const digits = /^\d{1,3}(\.\d{3})+$/.test(compact) ? compact.replace(/\./g, '') : compact;
  if (!/^\d+(\.\d+)?$/.test(digits)) return undefined;
  const value = Number(digits);
  return Number.isFinite(value) ? value : undefined;
}
