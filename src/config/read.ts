// The readers of plain settings: numbers, seconds, flags and choices, each failing with a message
// that names the variable. Every group of settings (src/config/) reads through them.

export class ConfigError extends Error {}

export function nonNegativeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0 || value > 600)
    throw new ConfigError(`${name} must be a number of seconds from 0 to 600, got "${env[name]}"`);
  return value;
}

export function positiveSeconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0 || value > 3600)
    throw new ConfigError(`${name} must be a number of seconds above 0, at most 3600, got "${env[name]}"`);
  return value;
}

export function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const value = (env[name] ?? '').trim() || fallback;
  if (!values.includes(value as T))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${value}"`);
  return value as T;
}

export function nonNegativeInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError(`${name} must be an integer, 0 or more, got "${env[name]}"`);
  return value;
}

export function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`${name} must be a positive integer, got "${env[name]}"`);
  return value;
}

/** A yes/no setting: `true`/`1`/`yes` or `false`/`0`/`no` (unset: no). */
export function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no'].includes(value)) return false;
  if (['true', '1', 'yes'].includes(value)) return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}
