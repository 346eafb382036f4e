// The reset that hands an embedded database from one test file to the next (databases.ts) must leave
// nothing of the first file behind: the same rows as the template, and the same next IDs.
import { expect, it } from 'vitest';
import { createUser } from '../../src/auth/accounts.js';
import { seedOneOfEach } from './seed.js';
import { startServer } from './server.js';
import { readTemplateRows, resetToTemplate } from './template-rows.js';

it('puts a used database back to the template, next IDs included', async () => {
  const s = await startServer('pglite');
  try {
    const fresh = await readTemplateRows(s.db);
    const firstIds = (await s.post('/venues', { venue: 'First' })).body.id;
    await seedOneOfEach(s);
    await createUser(s.db.prisma, {
      login: 'someone',
      password: 'a long password',
      role: 'editor',
      email: 'someone@example.org',
    });
    expect(await readTemplateRows(s.db)).not.toEqual(fresh);

    await resetToTemplate(s.db, fresh);
    expect(await readTemplateRows(s.db)).toEqual(fresh);
    expect((await s.post('/venues', { venue: 'First' })).body.id).toBe(firstIds);
    expect((await s.get('/events')).body.total).toBe(0);
  } finally {
    await s.close();
  }
});
