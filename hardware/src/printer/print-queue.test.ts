import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurablePrintQueue, PrintQueueFullError } from './print-queue.ts';

const job = (id: string) => ({ id, createdAt: '2026-01-15T10:00:00.000Z', bytes: Buffer.from(`job ${id}`).toString('base64') });

describe('DurablePrintQueue', () => {
  it('keeps pending jobs, attempts and printed ids across a restart', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-queue-'));
    const queue = new DurablePrintQueue({ directory });
    queue.add(job('a'));
    queue.add(job('b'));
    queue.recordFailedAttempt('a', 'ECONNREFUSED');
    queue.markPrinted('b');

    const reopened = new DurablePrintQueue({ directory });
    assert.deepEqual(
      reopened.pending().map((pending) => [pending.id, pending.attempts, pending.lastError]),
      [['a', 1, 'ECONNREFUSED']],
    );
    assert.equal(reopened.wasPrinted('b'), true);
    assert.equal(reopened.add(job('b')), null, 'a printed job id is not queued again');
    assert.equal(reopened.add(job('a'))?.attempts, 1, 'a queued job id is not duplicated');
    assert.equal(reopened.size, 1);
  });

  it('forgets a sensitive job\'s bytes (a gift card\'s code) from the journal as soon as it printed', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-queue-'));
    const queue = new DurablePrintQueue({ directory });
    const secret = Buffer.from('gc_0123456789abcdef').toString('base64');
    queue.add({ ...job('card'), bytes: secret, sensitive: true });
    queue.add(job('other'));
    assert.ok(readFileSync(queue.path, 'utf8').includes(secret), 'journalled while it waits: a crash must not lose it');
    queue.markPrinted('card');
    const journal = readFileSync(queue.path, 'utf8');
    assert.equal(journal.includes(secret), false);
    const reopened = new DurablePrintQueue({ directory });
    assert.equal(reopened.wasPrinted('card'), true, 'still printed once: its id is remembered');
    assert.deepEqual(reopened.pending().map((pending) => pending.id), ['other']);
  });

  it('remembers an id delivered without queueing (a drawer kick) across a restart, and never queues it', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-queue-'));
    const queue = new DurablePrintQueue({ directory });
    queue.rememberDelivered('drawer:sale-1');
    queue.rememberDelivered('drawer:sale-1');
    assert.equal(queue.wasPrinted('drawer:sale-1'), true);
    assert.equal(queue.size, 0);
    assert.equal(readFileSync(queue.path, 'utf8').trim().split('\n').length, 1, 'journalled once');
    const reopened = new DurablePrintQueue({ directory });
    assert.equal(reopened.wasPrinted('drawer:sale-1'), true);
    assert.deepEqual(reopened.pending(), []);
    reopened.compact();
    assert.equal(new DurablePrintQueue({ directory }).wasPrinted('drawer:sale-1'), true, 'kept by compaction');
  });

  it('ignores a torn last line left by a power cut', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-queue-'));
    const queue = new DurablePrintQueue({ directory });
    queue.add(job('a'));
    appendFileSync(queue.path, '{"op":"add","job":{"id":"b","by');
    assert.deepEqual(new DurablePrintQueue({ directory }).pending().map((pending) => pending.id), ['a']);
  });

  it('refuses new jobs when full instead of dropping any', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-queue-'));
    const queue = new DurablePrintQueue({ directory, maxPendingJobs: 2 });
    queue.add(job('a'));
    queue.add(job('b'));
    assert.throws(() => queue.add(job('c')), PrintQueueFullError);
    assert.equal(queue.size, 2);
  });

  it('compacts the journal to what still matters, with a bounded memory of printed ids', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-queue-'));
    const queue = new DurablePrintQueue({ directory, compactAfterLines: 50, rememberPrintedJobs: 5 });
    for (let index = 0; index < 40; index += 1) {
      queue.add(job(`j${index}`));
      queue.markPrinted(`j${index}`);
    }
    queue.add(job('waiting'));
    const lines = readFileSync(queue.path, 'utf8').trim().split('\n');
    assert.ok(lines.length <= 50, `journal has ${lines.length} lines; 81 without compaction`);
    const reopened = new DurablePrintQueue({ directory, rememberPrintedJobs: 5 });
    assert.deepEqual(reopened.pending().map((pending) => pending.id), ['waiting']);
    assert.equal(reopened.wasPrinted('j39'), true);
    assert.equal(reopened.wasPrinted('j0'), false);
  });
});
