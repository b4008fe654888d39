import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { PcscNfcReader } from '@tapline/hardware/src/nfc/index.ts';
import { utilityProcessWorker } from './pcsc-utility.ts';
import { nodeUtilityProcess } from './testing/node-utility-process.ts';

const WORKER = fileURLToPath(new URL('../../../hardware/src/nfc/pcsc-worker.ts', import.meta.url));

describe('the PC/SC driver as a utility process', () => {
  it('talks to the reader over parentPort: a machine without pcscd is reported unavailable, not crashed', async () => {
    const env = { ...process.env, PCSCLITE_CSOCK_NAME: '/nonexistent/pcscd.comm' };
    const reader = new PcscNfcReader({ checkPcscd: () => ({ available: true, socketPath: '/fake' }), spawnWorker: () => utilityProcessWorker({ fork: nodeUtilityProcess }, WORKER, env), unavailableRecheckMs: 60_000 });
    const states: string[] = [];
    reader.on('status', (status) => states.push(status.state));
    await reader.start();
    for (let i = 0; i < 200 && reader.status().state !== 'unavailable'; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.equal(reader.status().state, 'unavailable');
    assert.match(String(reader.status().detail ?? ''), /pcscd|PC\/SC|socket/i);
    await reader.stop();
    assert.ok(states.includes('unavailable'));
  });
});
