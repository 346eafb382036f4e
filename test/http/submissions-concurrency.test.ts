// What keeps public submissions right when requests interleave, on PostgreSQL through two instances:
// one event sent at once from many addresses is taken once (the unique index on the day's duplicate
// key); one proof of work sent at once is spent once (submission_challenges' primary key), whichever
// instance made the challenge (the signing keys are shared: service_secrets); one address gets its
// day's submissions and no more (the conditional upsert of submission_requests); and editors deciding
// one submission at once decide it once (its row lock: services/submissions/moderate.ts), its image
// published or deleted with it.
import { expect } from 'vitest';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { secondInstance } from '../setup/second-instance.js';
import { photo } from '../setup/images.js';
import { solvedChallenge, submission, submit, submitWithImage } from '../setup/submissions.js';

const ENV = { SUBMISSIONS: 'anyone', SUBMISSION_POW_COST: '20', TRUST_PROXY: 'loopback', SUBMISSIONS_PER_ADDRESS: '4' };

const post = (base: string, body: unknown, address: string) =>
  fetch(`${base}/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(body),
  }).then(async (r) => {
    if (r.status >= 500) console.log(r.status, await r.text());
    return r.status;
  });

describeEachDatabase(
  'Public submissions under concurrency',
  (s, kind) => {
    const why = 'two pools on one database';

    itOnPostgres(kind, 'takes one event sent ten times at once through two instances once', why, async () => {
      const second = await secondInstance(s, ENV);
      try {
        const fields = submission({ title: 'Lantern parade' });
        const proofs = await Promise.all(Array.from({ length: 10 }, () => solvedChallenge(s)));
        const statuses = await Promise.all(
          proofs.map((altcha, i) =>
            post(
              i % 2 ? second.base : s.base,
              { ...fields, submitter: { name: 'P', email: `p${i}@example.org` }, altcha },
              `198.51.100.${i + 1}`,
            ),
          ),
        );
        expect(
          statuses.filter((x) => x === 202),
          String(statuses),
        ).toHaveLength(1);
        expect(
          statuses.filter((x) => x === 409),
          String(statuses),
        ).toHaveLength(9);
        const rows = await s.db.prisma.event.count({ where: { title: 'Lantern parade' } });
        expect(rows).toBe(1);
      } finally {
        await second.close();
      }
    });

    itOnPostgres(kind, 'spends a proof once when it is sent at once to two instances', why, async () => {
      const second = await secondInstance(s, ENV);
      try {
        const altcha = await solvedChallenge(s);
        const statuses = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            post(i % 2 ? second.base : s.base, { ...submission(), altcha }, `198.51.100.${20 + i}`),
          ),
        );
        expect(statuses.filter((x) => x === 202)).toHaveLength(1);
        expect(statuses.filter((x) => x === 400)).toHaveLength(5);
      } finally {
        await second.close();
      }
    });

    itOnPostgres(kind, "gives one address its day's submissions and no more when it sends at once", why, async () => {
      const proofs = await Promise.all(Array.from({ length: 8 }, () => solvedChallenge(s)));
      const statuses = await Promise.all(
        proofs.map((altcha) => post(s.base, { ...submission(), altcha }, '203.0.113.99')),
      );
      expect(statuses.filter((x) => x === 202)).toHaveLength(4);
      expect(statuses.filter((x) => x === 429)).toHaveLength(4);
      const counted = await s.db.prisma.submissionRequest.findMany({ where: { kind: 'address' } });
      expect(counted.some((row) => row.requests === 4)).toBe(true);
    });

    itOnPostgres(kind, 'decides a submission once when editors approve and reject it at once', why, async () => {
      for (let round = 0; round < 4; round++) {
        const address = `192.0.2.${100 + round}`;
        // Every other one with an image, which the decision publishes or deletes with it.
        const r =
          round % 2 ? await submitWithImage(s, await photo(32, 24), {}, { address }) : await submit(s, {}, address);
        const answers = await Promise.all([
          s.post(`/submissions/${r.body.id}/approve`, {}, { as: 'editor' }),
          s.post(`/submissions/${r.body.id}/reject`, { reason: 'No' }, { as: 'administrator' }),
          s.post(`/submissions/${r.body.id}/approve`, {}, { as: 'administrator' }),
        ]);
        expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
        expect(answers.filter((a) => a.status === 409)).toHaveLength(2);
        const decided = answers.find((a) => a.status === 200)?.body as { state: string; event: { id: number } };
        const event = await s.db.prisma.event.findUniqueOrThrow({ where: { id: decided.event.id } });
        expect(event.status).toBe(decided.state === 'approved' ? 'publish' : 'trash');
        const image = (await s.db.prisma.submission.findUniqueOrThrow({ where: { id: r.body.id } })).newImageId;
        if (round % 2) {
          const media = image === null ? null : await s.db.prisma.media.findUnique({ where: { id: image } });
          if (decided.state === 'approved') expect(media).toMatchObject({ pending: false });
          else expect(media).toBeNull();
        }
      }
    });
  },
  { env: ENV },
);
