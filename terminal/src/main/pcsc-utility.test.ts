import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { PcscNfcReader } from '@tapline/hardware/src/nfc/index.ts';
import type { UtilityProcessLike } from './electron-like.ts';
import { utilityProcessWorker } from './pcsc-utility.ts';

const WORKER = fileURLToPath(new URL('../../../hardware/src/nfc/pcsc-worker.ts', import.meta.url));
const PARENT_PORT_SHIM = fileURLToPath(new URL('./testing/parent-port-shim.mjs', import.meta.url));

/**
 * Electron's utilityProcess.fork, played by a Node child process: the child gets
 * process.parentPort (messages as {data}), as a utility process does, and no process.send.
 */
function nodeUtilityProcess(modulePath: string, _args: string[], options: { env?: NodeJS.ProcessEnv }): UtilityProcessLike {
  const child = fork(modulePath, [], { execArgv: ['--import', 'tsx', '--import', PARENT_PORT_SHIM], env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  return {
    get pid() {
      return child.pid;
    },
    postMessage: (message) => void child.send(message as object),
    kill: () => child.kill('SIGKILL'),
    on(event: string, listener: (...args: never[]) => void) {
      if (event === 'exit') child.on('exit', (code) => (listener as (code: number) => void)(code ?? 1));
      else child.on(event, listener as never);
      return this;
    },
  } as UtilityProcessLike;
}

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
