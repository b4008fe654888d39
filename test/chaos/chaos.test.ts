// The short chaos runs of CI (under two minutes each): 16 clients, 3 SIGKILLs and 3 rounds of
// terminated database connections in 40 seconds of traffic, against one server and against three
// behind HAProxy (docs/deploy.md). `npm run chaos` runs the long one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { databaseTargets } from '@tapline/sync-server/testing';
import { runChaos } from './chaos.ts';

const postgres = (await databaseTargets()).some((target) => target.name === 'postgres');
const haproxy = spawnSync('haproxy', ['-v']).status === 0;

describe('chaos on postgres', { skip: postgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL or 127.0.0.1:5432)' }, () => {
  it('loses nothing and does nothing twice through SIGKILLs and dropped database connections under load', { timeout: 180_000 }, async () => {
    const report = await runChaos({ seconds: 40, clients: 16, kills: 3, terminations: 3, drainSeconds: 20, log: (line) => console.log(`# ${line}`) });
    console.log(`# ${JSON.stringify({ requests: report.requests, acknowledged: report.acknowledged, inDoubt: report.inDoubt, terminatedConnections: report.terminatedConnections, ledger: report.ledger })}`);
    assert.deepEqual(report.exitsOnItsOwn, []);
    assert.deepEqual(report.problems, []);
    assert.equal(report.kills, 3);
    assert.equal(report.terminations, 3);
    assert.ok(report.terminatedConnections >= 3, `only ${report.terminatedConnections} connections terminated`);
    // The traffic was real on every path.
    assert.ok(report.acknowledged.payments > 50, JSON.stringify(report.acknowledged));
    assert.ok(report.acknowledged.posSessions > 50, JSON.stringify(report.acknowledged));
    assert.ok(report.acknowledged.offlinePayments > 50, JSON.stringify(report.acknowledged));
  });
});

describe('chaos behind HAProxy', { skip: !postgres ? 'needs PostgreSQL (TEST_DATABASE_URL or 127.0.0.1:5432)' : haproxy ? false : 'needs haproxy (apt install haproxy; .ci/run installs it)' }, () => {
  it('three instances on one PostgreSQL: an instance killed under load costs no acknowledged operation; terminals hear changes made through any instance', { timeout: 240_000 }, async () => {
    const report = await runChaos({ seconds: 40, clients: 16, kills: 3, terminations: 1, drainSeconds: 20, instances: 3, log: (line) => console.log(`# ${line}`) });
    console.log(`# ${JSON.stringify({ requests: report.requests, acknowledged: report.acknowledged, inDoubt: report.inDoubt, crossInstanceHello: report.crossInstanceHello, ledger: report.ledger })}`);
    assert.deepEqual(report.exitsOnItsOwn, []);
    assert.deepEqual(report.problems, []);
    assert.deepEqual([report.instances, report.kills, report.crossInstanceHello], [3, 3, true]);
    assert.ok(report.acknowledged.payments > 50, JSON.stringify(report.acknowledged));
    assert.ok(report.acknowledged.posSessions > 50, JSON.stringify(report.acknowledged));
    assert.ok(report.acknowledged.offlinePayments > 50, JSON.stringify(report.acknowledged));
  });
});
