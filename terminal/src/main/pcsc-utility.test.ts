import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { type WorkerHandle, PcscNfcReader } from '@tapline/hardware';
import { killAndAwaitDeath } from '@tapline/hardware/testing';
import { utilityProcessWorker } from './pcsc-utility.ts';
import { nodeUtilityProcess } from './testing/node-utility-process.ts';

const WORKER = fileURLToPath(new URL('../../../hardware/src/nfc/pcsc-worker.ts', import.meta.url));
const FAKE_WORKER = fileURLToPath(new URL('../../../hardware/src/testing/fake-nfc-worker.ts', import.meta.url));

/** Resolves when the reader reports `state` (or has already). */
function stateOf(reader: PcscNfcReader, state: string): Promise<void> {
  if (reader.status().state === state) return Promise.resolve();
  return new Promise((resolve) => reader.on('status', (status) => status.state === state && resolve()));
}

describe('the PC/SC driver as a utility process', () => {
  it('talks to the reader over parentPort: a machine without pcscd is reported unavailable, not crashed', async () => {
    const env = { ...process.env, PCSCLITE_CSOCK_NAME: '/nonexistent/pcscd.comm' };
    const reader = new PcscNfcReader({ checkPcscd: () => ({ available: true, socketPath: '/fake' }), spawnWorker: () => utilityProcessWorker({ fork: nodeUtilityProcess }, WORKER, env), unavailableRecheckMs: 60_000 });
    const states: string[] = [];
    reader.on('status', (status) => states.push(status.state));
    await reader.start();
    // The driver says so and exits at once: the stop below may meet it dead, its exit not yet heard.
    await stateOf(reader, 'unavailable');
    assert.match(String(reader.status().detail ?? ''), /pcscd|PC\/SC|socket/i);
    await reader.stop();
    assert.equal(reader.status().state, 'stopped');
    assert.ok(states.includes('unavailable'));
  });

  for (const when of ['before its exit is heard', 'after its exit was heard'] as const) {
    it(`stops a driver utility process that was killed behind its back, ${when}, without throwing`, async () => {
      const workers: WorkerHandle[] = [];
      const reader = new PcscNfcReader({
        checkPcscd: () => ({ available: true, socketPath: '/fake' }),
        spawnWorker: () => {
          const worker = utilityProcessWorker({ fork: nodeUtilityProcess }, FAKE_WORKER, { ...process.env, FAKE_NFC_WORKER_CRASH: '0' });
          workers.push(worker);
          return worker;
        },
        restartInitialDelayMs: 60_000,
      });
      await reader.start();
      await stateOf(reader, 'ready');
      if (when === 'after its exit was heard') {
        const restarting = stateOf(reader, 'restarting');
        killAndAwaitDeath(workers[0]!.pid);
        await restarting;
      } else {
        // Dead, but this process has not turned its event loop since: its channel still looks open.
        killAndAwaitDeath(workers[0]!.pid);
      }
      await reader.stop();
      assert.equal(reader.status().state, 'stopped');
      assert.equal(workers.length, 1, 'no driver started again after the stop');
    });
  }
});
