// The till's relay of display states to its host: one post at a time, the newest only, a failed
// post tried again unless a newer state replaced it. Posts are promises the test settles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostRelay } from './display-relay.ts';

/** A post whose answers the test gives one by one. */
function controlledPost() {
  const sent: string[] = [];
  const pending: ((ok: boolean) => void)[] = [];
  let onPost: (() => void) | null = null;
  const post = (text: string) => {
    sent.push(text);
    onPost?.();
    return new Promise<boolean>((resolve) => pending.push(resolve));
  };
  return {
    post,
    sent,
    answer: (ok: boolean) => pending.shift()!(ok),
    /** Resolves at the next post. */
    nextPost: () => new Promise<void>((resolve) => (onPost = resolve)),
    get waiting() {
      return pending.length;
    },
  };
}

describe('display relay to the host', () => {
  it('sends one state at a time and, after a burst, only the newest', async () => {
    const host = controlledPost();
    const relay = hostRelay(host.post, 0);
    relay.send('a');
    relay.send('b');
    relay.send('c');
    assert.deepEqual(host.sent, ['a'], 'one in flight');
    const posted = host.nextPost();
    host.answer(true);
    await posted;
    assert.deepEqual(host.sent, ['a', 'c'], 'b was replaced by c before it left');
    host.answer(true);
    await relay.idle();
    assert.equal(host.waiting, 0);
  });

  it('tries a refused state again, but not once a newer one is waiting', async () => {
    const host = controlledPost();
    const relay = hostRelay(host.post, 0);
    relay.send('a');
    let posted = host.nextPost();
    host.answer(false);
    // Retried after retryMs (0 here): the same state.
    await posted;
    assert.deepEqual(host.sent, ['a', 'a']);
    relay.send('b');
    posted = host.nextPost();
    host.answer(false);
    await posted;
    assert.deepEqual(host.sent, ['a', 'a', 'b'], 'b, not a third a');
    host.answer(true);
    await relay.idle();
    relay.stop();
  });

  it('stops: nothing more is sent', async () => {
    const host = controlledPost();
    const relay = hostRelay(host.post, 0);
    relay.send('a');
    relay.stop();
    relay.send('b');
    host.answer(false);
    await relay.idle();
    assert.deepEqual(host.sent, ['a']);
    assert.equal(host.waiting, 0);
  });
});
