import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { buildType2TagImage, toHex } from '@tapline/shared/ndef';
import { killAndAwaitDeath } from '../testing/dead-process.ts';
import { ManualClock } from '../testing/manual-clock.ts';
import { PcscNfcReader } from './pcsc-reader.ts';
import type { TagEvent, UnsupportedTagEvent } from './types.ts';
import { forkWorker } from './worker-process.ts';
import type { WorkerHandle } from './worker-process.ts';
import { parseWorkerMessage } from './worker-protocol.ts';
import type { ParentMessage, WorkerMessage } from './worker-protocol.ts';

/** A driver process the test controls: it says what the test tells it to and dies on command. */
class FakeWorker implements WorkerHandle {
  readonly sent: ParentMessage[] = [];
  killed = false;
  #onMessage: Array<(message: unknown) => void> = [];
  #onExit: Array<(code: number | null, signal: string | null) => void> = [];
  onMessage(listener: (message: unknown) => void): void {
    this.#onMessage.push(listener);
  }
  onExit(listener: (code: number | null, signal: string | null) => void): void {
    this.#onExit.push(listener);
  }
  send(message: ParentMessage): void {
    this.sent.push(message);
    if (message.type === 'stop') this.exit(0, null);
  }
  kill(): void {
    this.killed = true;
    this.exit(null, 'SIGKILL');
  }
  say(message: WorkerMessage | Record<string, unknown>): void {
    for (const listener of this.#onMessage) listener(message);
  }
  exit(code: number | null, signal: string | null): void {
    for (const listener of this.#onExit) listener(code, signal);
  }
}

function setup(options: { maxConsecutiveRestarts?: number } = {}) {
  const clock = new ManualClock();
  const workers: FakeWorker[] = [];
  const reader = new PcscNfcReader({
    clock,
    checkPcscd: () => ({ available: true, socketPath: '/run/pcscd/pcscd.comm' }),
    spawnWorker: () => {
      const worker = new FakeWorker();
      workers.push(worker);
      return worker;
    },
    restartInitialDelayMs: 1000,
    restartMaxDelayMs: 8000,
    heartbeatTimeoutMs: 20_000,
    stableAfterMs: 60_000,
    ...options,
  });
  const errors: string[] = [];
  reader.on('error', (error) => errors.push(error.message));
  return { clock, workers, reader, errors };
}

const UID = Uint8Array.of(0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60);

describe('PcscNfcReader (parent side of the driver process)', () => {
  it('turns driver messages into attach, tag and unsupported events', async () => {
    const { workers, reader } = setup();
    const tags: TagEvent[] = [];
    const unsupported: UnsupportedTagEvent[] = [];
    const attached: string[] = [];
    reader.on('tag', (event) => tags.push(event));
    reader.on('unsupported', (event) => unsupported.push(event));
    reader.on('attach', (event) => attached.push(event.readerName));
    await reader.start();
    const worker = workers[0];
    assert.ok(worker);
    worker.say({ type: 'ready' });
    worker.say({ type: 'attach', readerName: 'ACS ACR122U' });
    const memory = buildType2TagImage({ model: 'NTAG213', uid: UID, uri: 'https://pay.tapline.test/tap/TGABCDEF01' });
    worker.say({ type: 'type2', readerName: 'ACS ACR122U', uid: toHex(UID), memoryHex: toHex(memory.subarray(0, 64)) });
    worker.say({ type: 'unsupported', readerName: 'ACS ACR122U', uid: '08112233', reason: 'iso14443_4' });

    assert.deepEqual(attached, ['ACS ACR122U']);
    assert.deepEqual(reader.status(), { driver: 'pcsc', state: 'ready', readers: ['ACS ACR122U'], restarts: 0 });
    assert.equal(tags.length, 1);
    assert.equal(tags[0]?.tagId, 'TGABCDEF01');
    assert.equal(tags[0]?.uid, '04102030405060');
    assert.equal(unsupported[0]?.reason, 'iso14443_4');
    await reader.stop();
    assert.deepEqual(worker.sent, [{ type: 'stop' }]);
  });

  it('restarts a crashed driver with exponential back-off', async () => {
    const { clock, workers, reader } = setup();
    const states: string[] = [];
    reader.on('status', (status) => states.push(status.state));
    await reader.start();
    workers[0]?.say({ type: 'ready' });

    workers[0]?.exit(139, null);
    assert.equal(reader.status().state, 'restarting');
    assert.match(reader.status().detail ?? '', /exit code 139\); restarting in 1000 ms/);
    clock.advance(999);
    assert.equal(workers.length, 1);
    clock.advance(1);
    assert.equal(workers.length, 2);

    workers[1]?.exit(null, 'SIGSEGV');
    clock.advance(1999);
    assert.equal(workers.length, 2, 'second crash waits 2 s');
    clock.advance(1);
    assert.equal(workers.length, 3);
    workers[2]?.say({ type: 'ready' });
    assert.equal(reader.status().restarts, 2);
    assert.deepEqual(states, ['starting', 'ready', 'restarting', 'starting', 'restarting', 'starting', 'ready']);
    await reader.stop();
  });

  it('gives up after too many consecutive crashes, and forgives crashes after a stable run', async () => {
    const { clock, workers, reader, errors } = setup({ maxConsecutiveRestarts: 3 });
    await reader.start();
    // A crash after a long stable run does not count toward the limit.
    clock.advance(120_000);
    workers.at(-1)?.exit(1, null);
    for (let crash = 0; crash < 3; crash += 1) {
      clock.advance(8000);
      workers.at(-1)?.exit(1, null);
    }
    assert.equal(reader.status().state, 'failed');
    assert.match(errors.join('\n'), /keeps crashing/);
    assert.equal(workers.length, 4);
    clock.advance(600_000);
    assert.equal(workers.length, 4, 'no restart once failed');
    await reader.stop();
  });

  it('kills a driver that stops sending heartbeats (a hung native call) and restarts it', async () => {
    const { clock, workers, reader, errors } = setup();
    await reader.start();
    workers[0]?.say({ type: 'ready' });
    clock.advance(15_000);
    workers[0]?.say({ type: 'heartbeat' });
    clock.advance(15_000);
    assert.equal(workers[0]?.killed, false, 'the heartbeat rearmed the watchdog');
    clock.advance(5000);
    assert.equal(workers[0]?.killed, true);
    assert.match(errors[0] ?? '', /sent nothing for 20000 ms/);
    clock.advance(1000);
    assert.equal(workers.length, 2);
    await reader.stop();
  });

  it('ignores malformed messages from the driver', async () => {
    const { workers, reader, errors } = setup();
    const tags: TagEvent[] = [];
    reader.on('tag', (event) => tags.push(event));
    await reader.start();
    workers[0]?.say({ type: 'type2', readerName: 'x', uid: 'not hex', memoryHex: '' });
    workers[0]?.say({ type: 'launch-missiles' });
    assert.equal(tags.length, 0);
    assert.equal(errors.length, 2);
    assert.equal(parseWorkerMessage({ type: 'unsupported', readerName: 'r', uid: '04', reason: 'bogus' }), null);
    await reader.stop();
  });

  it('runs a real forked driver process over IPC and restarts it after it crashes', async () => {
    const clock = new ManualClock();
    let launches = 0;
    const reader = new PcscNfcReader({
      clock,
      checkPcscd: () => ({ available: true, socketPath: null }),
      spawnWorker: () => {
        launches += 1;
        return forkWorker(new URL('../testing/fake-nfc-worker.ts', import.meta.url), { ...process.env, FAKE_NFC_WORKER_CRASH: launches === 1 ? '1' : '0' });
      },
      debounceWindowMs: 0,
    });
    const firstTag = once(reader, 'tag') as Promise<[TagEvent]>;
    await reader.start();
    const [event] = await firstTag;
    assert.equal(event.tagId, 'TG0BADCAFE');
    assert.equal(event.readerName, 'ACS ACR122U PICC Interface');

    // The fake driver exits with code 3 shortly after; the parent schedules a restart.
    await new Promise<void>((resolve) => {
      reader.on('status', (status) => {
        if (status.state === 'restarting') resolve();
      });
    });
    assert.equal(reader.status().restarts, 1);
    const secondTag = once(reader, 'tag') as Promise<[TagEvent]>;
    clock.advance(1000);
    const [again] = await secondTag;
    assert.equal(again.tagId, 'TG0BADCAFE');
    assert.equal(launches, 2);
    await reader.stop();
    assert.equal(reader.status().state, 'stopped');
  });

  for (const when of ['before its exit is heard', 'after its exit was heard'] as const) {
    it(`stops a real driver process that was killed behind its back, ${when}, without throwing`, async () => {
      const clock = new ManualClock();
      const workers: WorkerHandle[] = [];
      const reader = new PcscNfcReader({
        clock,
        checkPcscd: () => ({ available: true, socketPath: null }),
        spawnWorker: () => {
          const worker = forkWorker(new URL('../testing/fake-nfc-worker.ts', import.meta.url), { ...process.env, FAKE_NFC_WORKER_CRASH: '0' });
          workers.push(worker);
          return worker;
        },
        debounceWindowMs: 0,
      });
      const ready = new Promise<void>((resolve) => reader.on('status', (status) => status.state === 'ready' && resolve()));
      await reader.start();
      await ready;
      if (when === 'after its exit was heard') {
        const restarting = new Promise<void>((resolve) => reader.on('status', (status) => status.state === 'restarting' && resolve()));
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
