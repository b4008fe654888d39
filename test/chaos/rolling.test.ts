// The rolling restart of three instances behind HAProxy on PostgreSQL (rolling.ts, docs/deploy.md
// "Rolling restart"), short enough for the test suite: each instance restarted once under traffic.
// `npm run chaos:rolling` runs it with its full report (more rounds with ROLLING_ROUNDS).
// The instances run the production bundle under plain node, as deploy.md installs them; it is
// built into a folder of its own beside sync-server/dist (as test/build does), so node_modules and
// the front ends resolve as they do for the real one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildServer } from '@tapline/sync-server/build';
import { databaseTargets } from '@tapline/sync-server/testing';
import { runRollingRestart } from './rolling.ts';

const OUT_DIR = fileURLToPath(new URL(`../../sync-server/.build-rolling-${process.pid}/`, import.meta.url));

const postgres = (await databaseTargets()).some((target) => target.name === 'postgres');
const haproxy = spawnSync('haproxy', ['-v']).status === 0;

describe('rolling restart behind HAProxy', { skip: !postgres ? 'needs PostgreSQL (TEST_DATABASE_URL or 127.0.0.1:5432)' : haproxy ? false : 'needs haproxy (apt install haproxy; .ci/run installs it)' }, () => {
  before(async () => {
    await buildServer(OUT_DIR);
  });
  after(async () => {
    await rm(OUT_DIR, { recursive: true, force: true });
  });

  it('three instances on PostgreSQL restarted in turn with SIGTERM under load: no operation needs more than one retry, nothing lost or doubled, kiosks reconnected and greeted', { timeout: 240_000 }, async () => {
    const report = await runRollingRestart({ clients: 6, kiosks: 3, builtMain: join(OUT_DIR, 'main.js'), log: (line) => console.log(`# ${line}`) });
    // Figures to watch, never judged: how many retries the restarts cost and the slowest operation.
    console.log(`# rolling restart: ${report.retries} retries (${JSON.stringify(report.retryReasons)}), at most ${report.mostRetriesOfOneOperation} for one operation; worst latency ${report.worstLatencyMs} ms, median ${report.medianLatencyMs} ms`);
    console.log(`# ${JSON.stringify({ requests: report.requests, acknowledged: report.acknowledged, kiosks: report.kiosks, ledger: report.ledger })}`);
    assert.deepEqual(report.problems, []);
    assert.equal(report.restarts, 3);
    assert.ok(report.mostRetriesOfOneOperation <= 1, `an operation needed ${report.mostRetriesOfOneOperation} retries`);
    // Every instance went away once, so every kiosk was dropped at least once and came back, greeted.
    assert.ok(report.kiosks.fewestConnectionsOfOneKiosk >= 2, JSON.stringify(report.kiosks));
    assert.deepEqual([report.kiosks.connectedAtEnd, report.kiosks.heardHelloAfterLastConnect, report.kiosks.heardSettingsChangeAtEnd], [3, 3, 3]);
    // The traffic was real on every path.
    assert.ok(report.acknowledged.payments > 10, JSON.stringify(report.acknowledged));
    assert.ok(report.acknowledged.posSales > 10, JSON.stringify(report.acknowledged));
    assert.ok(report.acknowledged.offlinePayments > 10, JSON.stringify(report.acknowledged));
  });
});
