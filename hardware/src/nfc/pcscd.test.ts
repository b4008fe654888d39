import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../testing/manual-clock.ts';
import { createNfcReader } from './index.ts';
import { PcscNfcReader } from './pcsc-reader.ts';
import { checkPcscd } from './pcscd.ts';

const dir = mkdtempSync(join(tmpdir(), 'tapline-pcscd-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('checkPcscd', () => {
  it('says unavailable, with a reason, when the pcscd socket is missing', () => {
    const socketPath = join(dir, 'missing', 'pcscd.comm');
    const check = checkPcscd({ socketPath, platform: 'linux' });
    assert.equal(check.available, false);
    assert.equal(check.available ? '' : check.reason, 'socket_missing');
    assert.match(check.available ? '' : check.message, /No PC\/SC service/);
  });

  it('refuses a path that is not a socket', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    const check = checkPcscd({ socketPath: file, platform: 'linux' });
    assert.equal(check.available ? '' : check.reason, 'not_a_socket');
  });

  it('says available when a unix socket listens there', async () => {
    const socketPath = join(dir, 'pcscd.comm');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      assert.deepEqual(checkPcscd({ socketPath, platform: 'linux' }), { available: true, socketPath });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('PcscNfcReader without a PC/SC service', () => {
  it('never starts the driver, reports unavailable, and looks again later', async () => {
    const clock = new ManualClock();
    let checks = 0;
    let spawned = 0;
    const reader = new PcscNfcReader({
      clock,
      unavailableRecheckMs: 30_000,
      checkPcscd: () => {
        checks += 1;
        return checkPcscd({ socketPath: join(dir, 'nope.comm'), platform: 'linux' });
      },
      spawnWorker: () => {
        spawned += 1;
        throw new Error('must not be called');
      },
    });
    await reader.start();
    assert.equal(reader.status().state, 'unavailable');
    assert.match(reader.status().detail ?? '', /does not exist/);
    clock.advance(30_000);
    assert.equal(checks, 2);
    assert.equal(spawned, 0);
    await reader.stop();
    assert.equal(reader.status().state, 'stopped');
    assert.equal(clock.pendingTimers, 0);
  });

  it('createNfcReader in auto mode falls back to the simulator when pcscd is absent', () => {
    const reader = createNfcReader({ mode: 'auto', baseUrl: 'http://localhost:3000', debounceWindowMs: 1500 });
    // This machine may or may not run pcscd; the choice must match the socket check.
    assert.equal(reader.driver, checkPcscd().available ? 'pcsc' : 'simulated');
  });
});
