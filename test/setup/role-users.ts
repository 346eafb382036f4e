// One user per role, whose login is the role's name, each with a password and an application password.
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { ROLES, type Role } from '../../src/auth/roles.js';
import type { Database } from '../../src/db/client.js';

export interface TestUser {
  id: number;
  login: string;
  password: string;
  appPassword: string;
}

export type RoleUsers = Record<Role, TestUser>;

export async function createRoleUsers(db: Database): Promise<RoleUsers> {
  const entries = await Promise.all(
    ROLES.map(async (role) => {
      const password = `${role}-password`;
      const user = await createUser(db.prisma, { login: role, password, role, email: `${role}@example.org` });
      const { password: appPassword } = await issueAppPassword(db.prisma, role, 'tests');
      return [role, { id: user.id, login: role, password, appPassword }] as const;
    }),
  );
  return Object.fromEntries(entries) as RoleUsers;
}
