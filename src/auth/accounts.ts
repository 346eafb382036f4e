// Users and their application passwords: the operations behind `npm run users` and the start-up
// bootstrap. Secrets go in as plain text and are stored only as hashes; a new application password
// is returned once and never again.
import { randomUUID } from 'node:crypto';
import type { PrismaClient, Tx } from '../db/client.js';
import { hashSecret, newAppPassword } from './secrets.js';
import { ROLES, type Role } from './roles.js';

export class AccountError extends Error {}

export interface UserSummary {
  id: number;
  login: string;
  displayName: string;
  email: string;
  role: Role;
  /** Not counted by the general rate limits (http/rate-limits.ts). */
  rateLimitExempt: boolean;
  appPasswords: number;
}

export interface NewUser {
  login: string;
  password: string;
  role?: Role;
  displayName?: string;
  email?: string;
  rateLimitExempt?: boolean;
}

const LOGIN = /^[A-Za-z0-9._@-]{1,60}$/;
const MIN_PASSWORD = 8;

function checkRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role))
    throw new AccountError(`role must be one of ${ROLES.join(', ')}; got "${role}"`);
  return role as Role;
}

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD)
    throw new AccountError(`the password must have at least ${MIN_PASSWORD} characters`);
}

export async function createUser(prisma: PrismaClient, input: NewUser): Promise<UserSummary> {
  if (!LOGIN.test(input.login)) throw new AccountError('the login must be 1 to 60 letters, digits or . _ @ -');
  checkPassword(input.password);
  const role = checkRole(input.role ?? 'subscriber');
  if (await prisma.user.findUnique({ where: { login: input.login } }))
    throw new AccountError(`the login "${input.login}" is taken`);
  const user = await prisma.user.create({
    data: {
      login: input.login,
      displayName: input.displayName ?? input.login,
      email: input.email ?? '',
      role,
      passwordHash: await hashSecret(input.password),
      rateLimitExempt: input.rateLimitExempt ?? false,
    },
  });
  return { ...user, appPasswords: 0 };
}

/** Creates the administrator named by ADMIN_USER/ADMIN_PASSWORD unless that login exists. */
export async function bootstrapAdmin(prisma: PrismaClient, login: string, password: string): Promise<boolean> {
  if (await prisma.user.findUnique({ where: { login } })) return false;
  try {
    await createUser(prisma, { login, password, role: 'administrator' });
    return true;
  } catch (err) {
    // Another instance starting at the same time created it first.
    if ((err as { code?: string }).code === 'P2002') return false;
    throw err;
  }
}

export async function listUsers(prisma: PrismaClient): Promise<UserSummary[]> {
  const users = await prisma.user.findMany({
    orderBy: { id: 'asc' },
    include: { _count: { select: { appPasswords: true } } },
  });
  return users.map(({ _count, passwordHash: _, createdAt: __, ...user }) => ({
    ...user,
    appPasswords: _count.appPasswords,
  }));
}

export interface UserChanges {
  role?: string;
  password?: string;
  displayName?: string;
  email?: string;
  rateLimitExempt?: boolean;
}

/** The account of this login, if any: a CalDAV principal (caldav/routes.ts). */
export const accountOf = (prisma: PrismaClient, login: string) => prisma.user.findUnique({ where: { login } });

export async function updateUser(prisma: PrismaClient, login: string, changes: UserChanges): Promise<UserSummary> {
  if (changes.password !== undefined) checkPassword(changes.password);
  const role = changes.role === undefined ? undefined : checkRole(changes.role);
  const passwordHash = changes.password === undefined ? undefined : await hashSecret(changes.password);
  const updated = await prisma.$transaction(async (tx) => {
    const user = await findUser(tx, login);
    if (role !== undefined && role !== 'administrator') await keepAnAdministrator(tx, user, 'take the role of');
    return tx.user.update({
      where: { id: user.id },
      data: {
        role,
        displayName: changes.displayName,
        email: changes.email,
        passwordHash,
        rateLimitExempt: changes.rateLimitExempt,
      },
    });
  });
  const appPasswords = await prisma.appPassword.count({ where: { userId: updated.id } });
  return {
    id: updated.id,
    login: updated.login,
    displayName: updated.displayName,
    email: updated.email,
    role: updated.role,
    rateLimitExempt: updated.rateLimitExempt,
    appPasswords,
  };
}

export async function deleteUser(prisma: PrismaClient, login: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const user = await findUser(tx, login);
    await keepAnAdministrator(tx, user, 'delete');
    await tx.user.delete({ where: { id: user.id } });
  });
}

/**
 * Refuses to leave the service without an administrator (no one could then manage it through the
 * API). Every administrator's row is locked, in ID order, for the rest of the transaction: two
 * removals of the last two administrators at once take turns here, and the second finds one left.
 */
async function keepAnAdministrator(tx: Tx, user: { id: number; role: string }, doing: string): Promise<void> {
  if (user.role !== 'administrator') return;
  const administrators = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM users WHERE role = 'administrator' ORDER BY id FOR UPDATE`;
  const current = await tx.user.findUnique({ where: { id: user.id }, select: { role: true } });
  if (current?.role === 'administrator' && administrators.length <= 1) {
    throw new AccountError(`cannot ${doing} the last administrator: make another administrator first`);
  }
}

export interface IssuedAppPassword {
  uuid: string;
  name: string;
  /** The password in clear; shown once. */
  password: string;
}

export async function issueAppPassword(prisma: PrismaClient, login: string, name: string): Promise<IssuedAppPassword> {
  const user = await findUser(prisma, login);
  if (!name.trim() || name.length > 200)
    throw new AccountError('the application password needs a name of 1 to 200 characters');
  const { lookup, password } = newAppPassword();
  const uuid = randomUUID();
  await prisma.appPassword.create({
    data: { uuid, lookup, userId: user.id, name: name.trim(), secretHash: await hashSecret(password) },
  });
  return { uuid, name: name.trim(), password };
}

export async function listAppPasswords(prisma: PrismaClient, login: string) {
  const user = await findUser(prisma, login);
  return prisma.appPassword.findMany({
    where: { userId: user.id },
    orderBy: { id: 'asc' },
    select: { uuid: true, name: true, createdAt: true, lastUsedAt: true },
  });
}

/** Revokes by UUID, or by name (every password of that name). */
export async function revokeAppPassword(prisma: PrismaClient, login: string, uuidOrName: string): Promise<number> {
  const user = await findUser(prisma, login);
  const byUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuidOrName);
  const { count } = await prisma.appPassword.deleteMany({
    where: { userId: user.id, ...(byUuid ? { uuid: uuidOrName } : { name: uuidOrName }) },
  });
  if (count === 0) throw new AccountError(`"${login}" has no application password "${uuidOrName}"`);
  return count;
}

async function findUser(prisma: PrismaClient | Tx, login: string) {
  const user = await prisma.user.findUnique({ where: { login } });
  if (!user) throw new AccountError(`there is no user "${login}"`);
  return user;
}
