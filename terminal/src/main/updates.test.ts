import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@tapline/hardware/testing';
import { KioskConfigError } from './kiosk-config.ts';
import { type UpdaterLike, startUpdates, updateFeedFrom } from './updates.ts';

const HOUR = 60 * 60 * 1000;

/**
 * A stand-in for electron-updater's autoUpdater that behaves as it does with autoDownload: a
 * check that finds a newer version on the feed announces it, downloads it, and says so; a feed
 * that cannot be read rejects the check (or emits 'error').
 */
function fakeUpdater(feed: { version: string | null; failWith?: Error; throwWith?: Error } = { version: null }) {
  const listeners = new Map<string, ((value: never) => void)[]>();
  const calls = { checks: 0, downloads: [] as string[], installs: [] as [boolean | undefined, boolean | undefined][], feeds: [] as unknown[] };
  const emit = (event: string, value: unknown) => {
    for (const listener of listeners.get(event) ?? []) (listener as (value: unknown) => void)(value);
  };
  const updater: UpdaterLike = {
    channel: null,
    allowDowngrade: true,
    allowPrerelease: false,
    autoDownload: false,
    autoInstallOnAppQuit: false,
    setFeedURL: (options) => void calls.feeds.push(options),
    checkForUpdates() {
      calls.checks += 1;
      if (feed.throwWith) throw feed.throwWith;
      if (feed.failWith) return Promise.reject(feed.failWith);
      if (feed.version !== null && updater.autoDownload) {
        const version = feed.version;
        emit('update-available', { version });
        calls.downloads.push(version);
        emit('update-downloaded', { version });
      }
      return Promise.resolve(null);
    },
    quitAndInstall: (isSilent, isForceRunAfter) => void calls.installs.push([isSilent, isForceRunAfter]),
    on(event: string, listener: (value: never) => void) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return this;
    },
  };
  return { updater, calls, emit, feed };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('kiosk updates (electron-updater, generic provider, with a stand-in updater)', () => {
  it('checks at start and every 4 hours on its channel, downloads what it finds, and installs only when the till is idle in the quiet hour', async () => {
    const clock = new ManualClock();
    let hour = 14;
    let idleSeconds = 0;
    const logs: string[] = [];
    const { updater, calls, feed } = fakeUpdater();
    const updates = startUpdates(updater, { channel: 'beta', url: null, packagedFeed: true, packaged: true, clock, hourNow: () => hour, systemIdleSeconds: () => idleSeconds, log: (line) => logs.push(line) });
    assert.equal(updater.channel, 'beta');
    assert.equal(updater.allowPrerelease, true);
    assert.equal(updater.allowDowngrade, false, 'a channel never moves a kiosk back');
    assert.equal(updater.autoDownload, true);
    assert.equal(updater.autoInstallOnAppQuit, true, 'a downloaded update installs at the next quit');
    assert.deepEqual(calls.feeds, [], "the package's own feed (app-update.yml)");
    await settle();
    assert.equal(calls.checks, 1);
    assert.deepEqual(calls.downloads, [], 'nothing newer yet');
    clock.advance(4 * HOUR - 60_000);
    assert.equal(calls.checks, 1);

    feed.version = '0.2.0-beta.1';
    clock.advance(60_000);
    await settle();
    assert.equal(calls.checks, 2);
    assert.deepEqual(calls.downloads, ['0.2.0-beta.1']);
    assert.ok(logs.includes('kiosk: update 0.2.0-beta.1 downloaded; it installs when the till is idle after 3:00, or at the next restart'), logs.join('\n'));

    clock.advance(HOUR);
    assert.deepEqual(calls.installs, [], 'not during opening hours');
    hour = 3;
    idleSeconds = 120;
    clock.advance(10 * 60_000);
    assert.deepEqual(calls.installs, [], 'not while someone used the till in the last 5 minutes');
    idleSeconds = 300;
    clock.advance(60_000);
    assert.deepEqual(calls.installs, [[true, true]], 'silently, and the app starts again');
    assert.ok(logs.includes('kiosk: installing update 0.2.0-beta.1'));
    updates.stop();
  });

  it('logs every failure and keeps going: a rejected check, a check that throws, an error event, an install that throws', async () => {
    const clock = new ManualClock();
    const logs: string[] = [];
    const { updater, calls, emit, feed } = fakeUpdater({ version: null, failWith: new Error('net::ERR_NAME_NOT_RESOLVED') });
    const updates = startUpdates(updater, { channel: 'latest', url: 'https://updates.example/terminal', packagedFeed: false, packaged: true, clock, hourNow: () => 3, systemIdleSeconds: () => 3600, log: (line) => logs.push(line) });
    await settle();
    assert.ok(logs.includes('kiosk: update check failed: net::ERR_NAME_NOT_RESOLVED'), logs.join('\n'));
    feed.failWith = undefined;
    feed.throwWith = new Error('Cannot parse update info from latest-linux.yml');
    clock.advance(4 * HOUR);
    await settle();
    assert.equal(calls.checks, 2);
    assert.ok(logs.includes('kiosk: update check failed: Cannot parse update info from latest-linux.yml'));
    emit('error', new Error('sha512 checksum mismatch'));
    assert.ok(logs.includes('kiosk: update failed: sha512 checksum mismatch'));
    // A download that finishes, then an install that throws: logged, and the till keeps selling.
    feed.throwWith = undefined;
    feed.version = '0.3.0';
    updater.quitAndInstall = () => {
      throw new Error('EACCES: the package cannot be replaced');
    };
    clock.advance(4 * HOUR);
    await settle();
    clock.advance(60_000);
    assert.ok(logs.includes('kiosk: installing update 0.3.0 failed: EACCES: the package cannot be replaced'), logs.join('\n'));
    clock.advance(4 * HOUR);
    await settle();
    assert.equal(calls.checks, 4, 'still checking');
    updates.stop();
  });

  it('takes the feed from kiosk-config.json or the environment; off without one, and in a build that is not installed', async () => {
    const clock = new ManualClock();
    const config = { updateUrl: 'https://updates.example/terminal', updateChannel: 'latest' };
    assert.deepEqual(updateFeedFrom({}, config, false), { url: 'https://updates.example/terminal', channel: 'latest', packagedFeed: false });
    assert.deepEqual(updateFeedFrom({ TAPLINE_UPDATE_URL: 'https://mirror.example/tapline/', TAPLINE_UPDATE_CHANNEL: 'beta' }, config, true), { url: 'https://mirror.example/tapline', channel: 'beta', packagedFeed: true });
    assert.deepEqual(updateFeedFrom({ TAPLINE_UPDATE_URL: '', TAPLINE_UPDATE_CHANNEL: '' }, config, false).channel, 'latest', 'an empty variable counts as unset');
    assert.throws(() => updateFeedFrom({ TAPLINE_UPDATE_URL: 'ftp://mirror.example' }, config, false), KioskConfigError);
    assert.throws(() => updateFeedFrom({ TAPLINE_UPDATE_CHANNEL: 'nightly' }, config, false), /TAPLINE_UPDATE_CHANNEL must be one of latest, beta/);

    const { updater, calls } = fakeUpdater();
    startUpdates(updater, { ...updateFeedFrom({}, config, false), packaged: true, clock, log: () => undefined }).stop();
    await settle();
    assert.deepEqual(calls.feeds, [{ provider: 'generic', url: 'https://updates.example/terminal', channel: 'latest' }]);
    assert.equal(updater.allowPrerelease, false);

    const none = fakeUpdater();
    const logs: string[] = [];
    startUpdates(none.updater, { url: null, channel: 'latest', packagedFeed: false, packaged: true, clock, log: (line) => logs.push(line) });
    const unpacked = fakeUpdater();
    startUpdates(unpacked.updater, { url: 'https://updates.example/terminal', channel: 'latest', packagedFeed: true, packaged: false, clock, log: (line) => logs.push(line) });
    clock.advance(24 * HOUR);
    await settle();
    assert.equal(none.calls.checks + unpacked.calls.checks, 0);
    assert.deepEqual(logs, ['kiosk: updates are off (no update server: set updateUrl in kiosk-config.json or TAPLINE_UPDATE_URL)', 'kiosk: updates are off (not an installed build)']);
  });
});
