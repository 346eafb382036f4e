// The smallest SQL surface the migration runner needs, over either driver: PGlite's `exec` and pg's
// simple-query protocol both run a script of several statements.
export interface SqlConnection {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of one or more statements, without parameters. */
  exec(script: string): Promise<void>;
}
