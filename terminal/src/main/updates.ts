import { type Clock, type TimerHandle, systemClock } from '@tapline/hardware';
import { type KioskConfig, KioskConfigError, UPDATE_CHANNELS, parseSyncServerUrl } from './kiosk-config.ts';

/** The members of electron-updater's autoUpdater the kiosk uses (a stand-in in tests). */
export interface UpdaterLike {
  channel: string | null;
  allowDowngrade: boolean;
  allowPrerelease: boolean;
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  setFeedURL(options: { provider: 'generic'; url: string; channel?: string }): void;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'update-available', listener: (info: { version: string }) => void): unknown;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Where updates come from: the environment and kiosk-config.json, else the package's own app-update.yml. */
export interface UpdateFeed {
  /** A generic server (TAPLINE_UPDATE_URL, or kiosk-config.json updateUrl); null: the package's own. */
  url: string | null;
  /** "latest" or "beta" (TAPLINE_UPDATE_CHANNEL, or kiosk-config.json updateChannel). */
  channel: string;
  /** The package was built with a feed (app-update.yml next to the app): used when url is null. */
  packagedFeed: boolean;
}

export interface UpdateOptions extends UpdateFeed {
  /** Installed builds only: an unpacked development build never updates itself. */
  packaged: boolean;
  /** How often to look for an update. Default 4 hours. */
  checkIntervalMs?: number;
  /** The local hour (0-23) from which a downloaded update may be installed (the app restarts). Default 3. */
  installHour?: number;
  /** Seconds without a touch or a key press before the till counts as idle. Default 300. */
  idleSeconds?: number;
  /** Seconds since the last input (Electron's powerMonitor.getSystemIdleTime); null: unknown (never idle). */
  systemIdleSeconds?: () => number | null;
  clock?: Clock;
  /** The local hour now (tests pass their own). */
  hourNow?: () => number;
  log: (line: string) => void;
}

/**
 * Updates from a generic server (files made by `electron-builder --publish`): checked at start
 * and every few hours, downloaded in the background, and installed when the till is idle in the
 * quiet hour (no touch or key for 5 minutes from 03:00 until 04:00, so a sale is never cut by a
 * restart), or at the next quit or restart, whichever comes first. A channel never moves a kiosk to
 * an older version. Without a feed (none configured, none built in) updates are off. Every
 * failure (no network, a bad feed, a broken download) is logged and retried at the next check:
 * never fatal for the till.
 */
export function startUpdates(updater: UpdaterLike, options: UpdateOptions): { stop(): void } {
  const off = (why: string) => {
    options.log(`kiosk: updates are off (${why})`);
    return { stop: () => undefined };
  };
  if (!options.packaged) return off('not an installed build');
  if (options.url === null && !options.packagedFeed) return off('no update server: set updateUrl in kiosk-config.json or TAPLINE_UPDATE_URL');
  const clock = options.clock ?? systemClock;
  const checkIntervalMs = options.checkIntervalMs ?? 4 * 60 * 60 * 1000;
  const installHour = options.installHour ?? 3;
  const idleSeconds = options.idleSeconds ?? 300;
  const hourNow = options.hourNow ?? (() => new Date(clock.now()).getHours());
  const systemIdle = options.systemIdleSeconds ?? (() => null);
  try {
    updater.channel = options.channel;
    updater.allowPrerelease = options.channel !== 'latest';
    updater.allowDowngrade = false;
    updater.autoDownload = true;
    updater.autoInstallOnAppQuit = true;
    if (options.url !== null) updater.setFeedURL({ provider: 'generic', url: options.url, channel: options.channel });
  } catch (error) {
    return off(`the updater refused its settings: ${(error as Error).message}`);
  }
  options.log(`kiosk: updates from ${options.url ?? "the package's feed"} on channel ${options.channel}`);

  let downloaded: string | null = null;
  let timer: TimerHandle | null = null;
  let stopped = false;
  updater.on('update-available', (info) => options.log(`kiosk: update ${info.version} available; downloading`));
  updater.on('update-downloaded', (info) => {
    downloaded = info.version;
    options.log(`kiosk: update ${info.version} downloaded; it installs when the till is idle after ${installHour}:00, or at the next restart`);
  });
  updater.on('error', (error) => options.log(`kiosk: update failed: ${error?.message ?? String(error)}`));

  const check = () => {
    // A feed that throws at once is as harmless as one that rejects.
    Promise.resolve()
      .then(() => updater.checkForUpdates())
      .catch((error: unknown) => options.log(`kiosk: update check failed: ${(error as Error)?.message ?? String(error)}`));
  };
  const idle = () => {
    const seconds = systemIdle();
    return seconds !== null && seconds >= idleSeconds;
  };
  // One tick a minute: install in the quiet hour once the till is idle, check on schedule.
  const tickMs = 60_000;
  let sinceCheckMs = 0;
  const tick = () => {
    if (stopped) return;
    sinceCheckMs += tickMs;
    if (downloaded !== null && hourNow() === installHour && idle()) {
      options.log(`kiosk: installing update ${downloaded}`);
      try {
        updater.quitAndInstall(true, true);
        return;
      } catch (error) {
        options.log(`kiosk: installing update ${downloaded} failed: ${(error as Error).message}`);
        downloaded = null;
      }
    }
    if (sinceCheckMs >= checkIntervalMs) {
      sinceCheckMs = 0;
      check();
    }
    timer = clock.setTimeout(tick, tickMs);
  };
  check();
  timer = clock.setTimeout(tick, tickMs);
  return {
    stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
    },
  };
}

/**
 * The feed from the environment over kiosk-config.json (TAPLINE_UPDATE_URL over updateUrl,
 * TAPLINE_UPDATE_CHANNEL over updateChannel); a bad value stops the app at start, as a bad file does.
 */
export function updateFeedFrom(env: NodeJS.ProcessEnv, config: Pick<KioskConfig, 'updateUrl' | 'updateChannel'>, packagedFeed: boolean): UpdateFeed {
  const given = (name: string) => (env[name] === undefined || env[name] === '' ? null : (env[name] as string));
  const envUrl = given('TAPLINE_UPDATE_URL');
  const url = envUrl === null ? config.updateUrl : parseSyncServerUrl(envUrl);
  if (url === null && envUrl !== null) throw new KioskConfigError(`TAPLINE_UPDATE_URL must be an http(s) address, not ${JSON.stringify(envUrl)}`);
  const channel = given('TAPLINE_UPDATE_CHANNEL') ?? config.updateChannel;
  if (!UPDATE_CHANNELS.has(channel)) throw new KioskConfigError(`TAPLINE_UPDATE_CHANNEL must be one of ${[...UPDATE_CHANNELS].join(', ')}`);
  return { url, channel, packagedFeed };
}
