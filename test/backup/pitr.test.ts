// pgBackRest point-in-time restore (pitr.ts), in CI: a fresh cluster archiving its WAL, a full
// backup, the server's migrations and real payouts and POS sales after it, a target time, more
// trade, then a restore to the target into a fresh data directory that `npm run ledger:check`
// finds clean, with every payment acknowledged before the target and none after it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installed, postgresBinDir } from './cluster.ts';
import { runPitr } from './pitr.ts';

const missing = !postgresBinDir() ? 'needs the PostgreSQL server binaries (/usr/lib/postgresql/*/bin)' : !installed('pgbackrest') ? 'needs pgbackrest (apt install pgbackrest; .ci/run installs it)' : false;
const required = process.env.REQUIRE_POSTGRES === '1';

describe('point-in-time restore with pgBackRest', { skip: missing && !required ? missing : false }, () => {
  it('restores to a target time: ledger:check clean, every payment acknowledged before the target present, none after it', { timeout: 300_000 }, async () => {
    assert.equal(missing, false, String(missing));
    const report = await runPitr({ before: 12, after: 5, log: (line) => console.log(`# ${line}`) });
    console.log(`# ${JSON.stringify({ target: report.target, atTarget: report.atTarget, restored: report.restored, seconds: report.seconds })}`);
    assert.deepEqual(report.problems, []);
    assert.equal(report.ledgerCheck.exitCode, 0, report.ledgerCheck.output);
    assert.match(report.ledgerCheck.output, /ledger:check OK/);
    assert.deepEqual(report.acknowledgedBefore, { payments: 12, posSales: 12 });
    assert.deepEqual(report.acknowledgedAfter, { payments: 5, posSales: 5 });
    assert.equal(report.restored.payments, 12);
    assert.equal(report.restored.posSalesCompleted, 12);
    assert.deepEqual(report.restored, report.atTarget);
    assert.match(report.backupInfo, /full backup/);
  });
});
