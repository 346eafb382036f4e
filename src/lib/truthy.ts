const TRUTHY = new Set(['1', 'true', 'yes', 'y', 'on', 'enable', 'enabled']);

/** The modelled service's truthy test: JSON true, 1, or one of its words in any case. */
export const truthy = (value: boolean | string | number | undefined | null) =>
  value === true || (typeof value === 'string' && TRUTHY.has(value.trim().toLowerCase())) || value === 1;
