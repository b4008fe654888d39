import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@tapline/hardware/src/testing/manual-clock.ts';
import { type UpdaterLike, startUpdates } from './updates.ts';

/** A stand-in for electron-updater's autoUpdater that records what it is asked. */
function fakeUpdater() {
  const listeners = new Map<string, ((value: never) => void)[]>();
  const calls = { checks: 0, installs: [] as [boolean | undefined, boolean | undefined][], feeds: [] as unknown[] };
  const updater: UpdaterLike = {
    channel: null,
    allowDowngrade: true,
    allowPrerelease: false,
    autoDownload: false,
    autoInstallOnAppQuit: false,
    setFeedURL: (options) => void calls.feeds.push(options),
    checkForUpdates: async () => {
      calls.checks += 1;
      return null;
    },
    quitAndInstall: (isSilent, isForceRunAfter) => void calls.installs.push([isSilent, isForceRunAfter]),
    on(event: string, listener: (value: never) => void) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return this;
    },
  };
  const emit = (event: string, value: unknown) => {
    for (const listener of listeners.get(event) ?? []) (listener as (value: unknown) => void)(value);
  };
  return { updater, calls, emit };
}

describe('kiosk updates (electron-updater, generic provider)', () => {
  it('checks at start and every 4 hours on its channel, and installs a downloaded update at the quiet hour only', () => {
    const clock = new ManualClock();
    let hour = 14;
    const logs: string[] = [];
    const { updater, calls, emit } = fakeUpdater();
    const updates = startUpdates(updater, { channel: 'beta', url: null, packaged: true, clock, hourNow: () => hour, log: (line) => logs.push(line) });
    assert.equal(updater.channel, 'beta');
    assert.equal(updater.allowPrerelease, true);
    assert.equal(updater.allowDowngrade, false, 'a channel never moves a kiosk back');
    assert.equal(updater.autoDownload, true);
    assert.equal(updater.autoInstallOnAppQuit, true);
    assert.deepEqual(calls.feeds, [], "the package's own feed (app-update.yml)");
    assert.equal(calls.checks, 1);
    clock.advance(4 * 60 * 60 * 1000 - 60_000);
    assert.equal(calls.checks, 1);
    clock.advance(60_000);
    assert.equal(calls.checks, 2);

    emit('update-downloaded', { version: '0.2.0' });
    clock.advance(60 * 60 * 1000);
    assert.deepEqual(calls.installs, [], 'not during opening hours');
    hour = 3;
    clock.advance(60_000);
    assert.deepEqual(calls.installs, [[true, true]]);
    assert.ok(logs.some((line) => line.includes('installing update 0.2.0')));
    emit('error', new Error('net::ERR_NAME_NOT_RESOLVED'));
    assert.ok(logs.some((line) => line.includes('update check failed: net::ERR_NAME_NOT_RESOLVED')));
    updates.stop();
  });

  it('takes another generic server from the kiosk config, and stays off in a build that is not installed', () => {
    const clock = new ManualClock();
    const { updater, calls } = fakeUpdater();
    startUpdates(updater, { channel: 'latest', url: 'https://updates.example/terminal', packaged: true, clock, log: () => undefined }).stop();
    assert.deepEqual(calls.feeds, [{ provider: 'generic', url: 'https://updates.example/terminal', channel: 'latest' }]);
    assert.equal(updater.allowPrerelease, false);

    const unpacked = fakeUpdater();
    const logs: string[] = [];
    startUpdates(unpacked.updater, { channel: 'latest', url: null, packaged: false, clock, log: (line) => logs.push(line) });
    clock.advance(24 * 60 * 60 * 1000);
    assert.equal(unpacked.calls.checks, 0);
    assert.deepEqual(logs, ['kiosk: updates are off (not an installed build)']);
  });
});
