// Paging arithmetic of every list (docs/decisions.md, "Lists and paging").
export const MAX_PER_PAGE = 50;

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

/** `per_page` above the maximum is clamped, not refused. */
export function pageOf(page: number, perPage: number): Page {
  const size = Math.min(perPage, MAX_PER_PAGE);
  return { page, perPage: size, offset: (page - 1) * size };
}

export const totalPages = (total: number, perPage: number) => (total === 0 ? 0 : Math.ceil(total / perPage));

/** A list's filters as applied (dates normalized, the rest as given), in the order links name them. */
export type AppliedFilters = [string, string | number | boolean | (string | number)[] | undefined][];

/** The named filters of a query, in that order, with the values it gives them. */
export function appliedFilters<Q extends object>(query: Q, names: readonly (keyof Q & string)[]): AppliedFilters {
  return names.map((name) => [name, query[name] as AppliedFilters[number][1]]);
}
