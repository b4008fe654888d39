import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useDatabase } from '../../testing/databases.ts';
import { sessionOverdue } from './service.ts';
import type { PosSessionStatus } from '@tapline/shared/schemas';

// A POS session's expiry is asked in TypeScript by reads, cancels and the PIN check, and in SQL
// by pos_tap: both forms must give the same answer.
const NOW = new Date('2030-01-01T12:00:00.000Z');
const CASES: { status: string; expiresAt: Date }[] = [
  { status: 'pending', expiresAt: new Date(NOW.getTime() - 1) },
  { status: 'pending', expiresAt: NOW },
  { status: 'pending', expiresAt: new Date(NOW.getTime() + 1) },
  { status: 'completed', expiresAt: new Date(NOW.getTime() - 60_000) },
  { status: 'expired', expiresAt: new Date(NOW.getTime() - 60_000) },
  { status: 'cancelled', expiresAt: new Date(NOW.getTime() + 60_000) },
];

for (const target of await databaseTargets()) {
  describe(`a POS session's expiry on ${target.name}`, () => {
    const db = useDatabase(target);

    it('sessionOverdue() and the SQL pos_session_overdue() answer alike', async () => {
      const answers = await db().query<{ overdue: boolean }>(
        'SELECT pos_session_overdue(c.status, c.expires_at, $3) AS overdue FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS c (status, expires_at, i) ORDER BY c.i',
        [CASES.map((c) => c.status), CASES.map((c) => c.expiresAt.toISOString()), NOW.toISOString()],
      );
      assert.deepEqual(answers.map((row) => row.overdue), CASES.map((c) => sessionOverdue({ status: c.status as PosSessionStatus, expires_at: c.expiresAt }, NOW)));
      assert.deepEqual(answers.map((row) => row.overdue), [true, true, false, false, false, false]);
    });
  });
}
