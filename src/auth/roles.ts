// The roles (docs/decisions.md, "Permissions and roles"), from most to least powerful, and who is calling.
export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

/** The signed-in caller; `null` stands for an anonymous one. */
export interface Principal {
  id: number;
  login: string;
  role: Role;
  /** Not counted by the general rate limits (users.rate_limit_exempt, as authentication read it; http/rate-limits.ts). */
  rateLimitExempt?: boolean;
  /**
   * The writer of a public submission (services/submissions/submit.ts): a contributor whose writes
   * belong to no account (no author, no quota of an account) and who reads only what is published.
   */
  ownsNothing?: true;
  /** The image that submission brought (services/submissions/submit.ts), which it alone, beside editors, may name while it waits. */
  bringsImage?: number;
}

export type Caller = Principal | null;

/** True when the caller's role is `minimum` or above it. */
export function hasRole(caller: Caller, minimum: Role): boolean {
  return caller !== null && ROLES.indexOf(caller.role) <= ROLES.indexOf(minimum);
}

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);
