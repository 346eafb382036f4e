// The site and its database: the site's zone, how costs are shown, the administrator made at
// start, and where the data lives with how long its statements and transactions may take.
import { IANAZone } from 'luxon';
import { type CurrencySettings, DEFAULT_CURRENCY } from '../lib/cost.js';
import { ConfigError, positiveSeconds } from './read.js';

/** Administrator created at start when its login does not exist yet. */
export interface AdminAccount {
  login: string;
  password: string;
}

/** A transaction runs statements, so it may not time out before one of them would. */
export function databaseTimeouts(env: NodeJS.ProcessEnv): { statementTimeout: number; transactionTimeout: number } {
  const statementTimeout = positiveSeconds(env, 'DATABASE_STATEMENT_TIMEOUT_SECONDS', 10);
  const transactionTimeout = positiveSeconds(env, 'DATABASE_TRANSACTION_TIMEOUT_SECONDS', 3 * statementTimeout);
  if (transactionTimeout < statementTimeout) {
    throw new ConfigError(
      `DATABASE_TRANSACTION_TIMEOUT_SECONDS (${transactionTimeout}) must not be below DATABASE_STATEMENT_TIMEOUT_SECONDS (${statementTimeout})`,
    );
  }
  return { statementTimeout, transactionTimeout };
}

export function siteZone(value: string | undefined): string {
  const zone = value || 'UTC';
  if (!IANAZone.isValidZone(zone)) {
    throw new ConfigError(`SITE_TIMEZONE must be an IANA time zone such as Europe/Paris, got "${zone}"`);
  }
  return zone;
}

export function postgresUrl(value: string | undefined): string | undefined {
  const url = value || undefined;
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('DATABASE_URL must be a postgresql:// connection string');
  }
  return url;
}

/** ADMIN_USER and ADMIN_PASSWORD: both set or neither. */
export function adminAccount(env: NodeJS.ProcessEnv): AdminAccount | undefined {
  if (Boolean(env.ADMIN_USER) !== Boolean(env.ADMIN_PASSWORD)) {
    throw new ConfigError('ADMIN_USER and ADMIN_PASSWORD must be set together');
  }
  if (env.ADMIN_PASSWORD && env.ADMIN_PASSWORD.length < 8) {
    throw new ConfigError('ADMIN_PASSWORD must have at least 8 characters');
  }
  return env.ADMIN_USER && env.ADMIN_PASSWORD ? { login: env.ADMIN_USER, password: env.ADMIN_PASSWORD } : undefined;
}

/**
 * COST_CURRENCY_SYMBOL and COST_CURRENCY_POSITION: the plugin's defaults are `$` before the amount. A symbol
 * is a few characters without digits, commas or periods, which would read as part of the amount.
 */
export function costCurrency(env: NodeJS.ProcessEnv): CurrencySettings {
  const symbol = env.COST_CURRENCY_SYMBOL?.trim() || DEFAULT_CURRENCY.symbol;
  if (symbol.length > 8 || /[\d.,\p{Cc}]/u.test(symbol)) {
    throw new ConfigError(
      `COST_CURRENCY_SYMBOL must be at most 8 characters without digits, commas or periods, got "${env.COST_CURRENCY_SYMBOL}"`,
    );
  }
  const position = env.COST_CURRENCY_POSITION?.trim().toLowerCase() || DEFAULT_CURRENCY.position;
  if (position !== 'prefix' && position !== 'suffix') {
    throw new ConfigError(`COST_CURRENCY_POSITION must be prefix or suffix, got "${env.COST_CURRENCY_POSITION}"`);
  }
  return { symbol, position };
}
