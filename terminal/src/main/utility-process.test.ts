import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UtilityProcessLike } from './electron-like.ts';
import { forkUtilityProcess } from './utility-process.ts';

/** A utility process whose channel can close before its exit event arrives: sending then throws, as Node's child.send does. */
function closingProcess() {
  const sent: unknown[] = [];
  let channelOpen = true;
  const exitListeners: ((code: number) => void)[] = [];
  const errorListeners: ((type: string, location: string) => void)[] = [];
  let kills = 0;
  const process = {
    pid: 42,
    postMessage(message: unknown) {
      if (!channelOpen) throw Object.assign(new Error('Channel closed'), { code: 'ERR_IPC_CHANNEL_CLOSED' });
      sent.push(message);
    },
    kill: () => {
      kills += 1;
      return true;
    },
    on(event: string, listener: (...args: never[]) => void) {
      if (event === 'exit') exitListeners.push(listener as (code: number) => void);
      if (event === 'error') errorListeners.push(listener as (type: string, location: string) => void);
      return process;
    },
  } as UtilityProcessLike;
  return {
    process,
    sent,
    closeChannel: () => void (channelOpen = false),
    exit: (code: number) => exitListeners.forEach((listener) => listener(code)),
    /** Electron's 'error' event (an EventEmitter's 'error' with no listener throws). */
    fatal: () => {
      if (errorListeners.length === 0) throw new Error('unhandled error event');
      errorListeners.forEach((listener) => listener('FatalError', 'v8'));
    },
    kills: () => kills,
  };
}

describe('a utility process as the hardware code drives it', () => {
  it('drops a message sent while the process is going away (channel closed, exit not yet heard) and after it exited', () => {
    const fake = closingProcess();
    const child = forkUtilityProcess<{ type: string }>({ fork: () => fake.process }, '/worker.js', 'Test worker', {});
    child.postMessage({ type: 'start' });
    assert.deepEqual(fake.sent, [{ type: 'start' }]);
    fake.closeChannel();
    assert.doesNotThrow(() => child.postMessage({ type: 'stop' }), 'a stop sent to a dying process does not throw');
    const exits: number[] = [];
    child.onExit((code) => exits.push(code));
    fake.exit(1);
    assert.doesNotThrow(() => child.postMessage({ type: 'stop' }));
    assert.deepEqual(fake.sent, [{ type: 'start' }], 'nothing more was delivered');
    assert.deepEqual(exits, [1]);
  });

  it('takes a fatal error event without throwing, and kills a process that exited not at all', () => {
    const fake = closingProcess();
    const child = forkUtilityProcess<{ type: string }>({ fork: () => fake.process }, '/worker.js', 'Test worker', {});
    assert.doesNotThrow(() => fake.fatal());
    child.kill();
    assert.equal(fake.kills(), 1);
    fake.exit(1);
    assert.doesNotThrow(() => child.kill());
    assert.doesNotThrow(() => child.postMessage({ type: 'stop' }));
    assert.equal(fake.kills(), 1, 'a process that exited is not killed again');
  });
});
