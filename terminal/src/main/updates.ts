import { systemClock } from '@tapline/hardware/src/clock.ts';
import type { Clock, TimerHandle } from '@tapline/hardware/src/clock.ts';

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
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface UpdateOptions {
  /** "latest" or "beta" (kiosk-config.json updateChannel). */
  channel: string;
  /** Another generic update server than the package's own (app-update.yml); null keeps it. */
  url: string | null;
  /** Installed builds only: an unpacked development build never updates itself. */
  packaged: boolean;
  /** How often to look for an update. Default 4 hours. */
  checkIntervalMs?: number;
  /** The local hour (0-23) at which a downloaded update is installed (the app restarts). Default 3. */
  installHour?: number;
  clock?: Clock;
  /** The local hour now (tests pass their own). */
  hourNow?: () => number;
  log: (line: string) => void;
}

/**
 * Updates from a generic server (electron-builder.yml `publish`, files made by
 * `electron-builder --publish`): checked at start and every few hours, downloaded in the
 * background, installed at the quiet hour (or at the next quit, whichever comes first), so a
 * sale is never cut by a restart in opening hours. A channel never moves a kiosk to an older
 * version.
 */
export function startUpdates(updater: UpdaterLike, options: UpdateOptions): { stop(): void } {
  if (!options.packaged) {
    options.log('kiosk: updates are off (not an installed build)');
    return { stop: () => undefined };
  }
  const clock = options.clock ?? systemClock;
  const checkIntervalMs = options.checkIntervalMs ?? 4 * 60 * 60 * 1000;
  const installHour = options.installHour ?? 3;
  const hourNow = options.hourNow ?? (() => new Date(clock.now()).getHours());
  updater.channel = options.channel;
  updater.allowPrerelease = options.channel !== 'latest';
  updater.allowDowngrade = false;
  updater.autoDownload = true;
  updater.autoInstallOnAppQuit = true;
  if (options.url !== null) updater.setFeedURL({ provider: 'generic', url: options.url, channel: options.channel });

  let downloaded: string | null = null;
  let timer: TimerHandle | null = null;
  let stopped = false;
  updater.on('update-downloaded', (info) => {
    downloaded = info.version;
    options.log(`kiosk: update ${info.version} downloaded; it installs at ${installHour}:00 or at the next restart`);
  });
  updater.on('error', (error) => options.log(`kiosk: update check failed: ${error.message}`));

  const check = () => {
    updater.checkForUpdates().catch((error: unknown) => options.log(`kiosk: update check failed: ${(error as Error).message}`));
  };
  // One tick a minute: install when the quiet hour comes with an update waiting, check on schedule.
  const tickMs = 60_000;
  let sinceCheckMs = 0;
  const tick = () => {
    if (stopped) return;
    sinceCheckMs += tickMs;
    if (downloaded !== null && hourNow() === installHour) {
      options.log(`kiosk: installing update ${downloaded}`);
      updater.quitAndInstall(true, true);
      return;
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
