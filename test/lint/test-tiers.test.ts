// The test tiers (scripts/test-tiers.mjs): `npm run test:unit` must run without a database, a
// network, a browser or a child process, so each file's tier is told from what it uses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
// @ts-expect-error a plain .mjs script without types
import { TIERS, tierOf } from '../../scripts/test-tiers.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tier = tierOf as (path: string, source?: string) => string;
const ofFile = (path: string) => tier(path, readFileSync(root + path, 'utf8'));

describe('test tiers', () => {
  it('are unit, db and e2e', () => {
    assert.deepEqual(TIERS, ['unit', 'db', 'e2e']);
  });

  it('tell real files apart: pure logic, a server on both databases, and Chromium, sockets or processes', () => {
    assert.deepEqual(
      ['shared/src/money.test.ts', 'sync-server/src/sync/message-gate.test.ts', 'sync-server/src/modules/payments/payments.test.ts', 'sync-server/src/sync/push-verdicts.test.ts', 'test/e2e/dashboard-payouts.e2e.test.ts', 'test/failover/failover.test.ts', 'hardware/src/nfc/pcsc-reader.test.ts'].map(ofFile),
      ['unit', 'unit', 'db', 'e2e', 'e2e', 'e2e', 'e2e'],
    );
  });

  it('read the source: a database, HTTP, a browser or a process moves a file out of unit', () => {
    const cases: [string, string][] = [
      ["import { add } from './money.ts';", 'unit'],
      ["const server = useTestServer(target);", 'db'],
      ["await fetch(url);", 'db'],
      ["import { io } from 'socket.io-client';", 'e2e'],
      ["import { spawn } from 'node:child_process';", 'e2e'],
      ["import { chromium } from 'playwright-core';", 'e2e'],
      ["// test-tier: e2e\nimport { add } from './money.ts';", 'e2e'],
    ];
    for (const [source, expected] of cases) assert.equal(tier('shared/src/x.test.ts', source), expected, source);
    assert.equal(tier('test/chaos/x.test.ts', ''), 'e2e');
    assert.equal(tier('sdk/python/x.test.ts', ''), 'e2e');
  });
});
