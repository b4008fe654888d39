import { type Clock, type TimerHandle, backoffDelayMs, systemClock } from '@tapline/hardware';
import type { KioskWindow } from './electron-like.ts';

export interface RecoveryOptions {
  /** The page the window must show (loaded again after a crash). */
  url: () => string;
  clock?: Clock;
  log: (line: string) => void;
  /** A page unresponsive this long is killed and loaded again. Default 15 s. */
  hangTimeoutMs?: number;
  /** Reload back-off: 1 s doubling to 30 s, reset once a load succeeds. */
  reloadInitialDelayMs?: number;
  reloadMaxDelayMs?: number;
}

/** Chromium's net error for a load replaced by another (not a failure). */
const ERR_ABORTED = -3;

/**
 * Keeps the till's page alive: when its renderer process crashes or is killed, when it hangs
 * longer than the timeout (it is then crashed on purpose), or when the page fails to load (the
 * host restarting), the page is loaded again with back-off. The page's state lives in IndexedDB
 * and localStorage (queued offline payments, the token), so a reload loses no sale.
 */
export function superviseRenderer(window: KioskWindow, options: RecoveryOptions): { stop(): void } {
  const clock = options.clock ?? systemClock;
  const hangTimeoutMs = options.hangTimeoutMs ?? 15_000;
  const initialMs = options.reloadInitialDelayMs ?? 1000;
  const maxMs = options.reloadMaxDelayMs ?? 30_000;
  const contents = window.webContents;
  let attempt = 0;
  let reloadTimer: TimerHandle | null = null;
  let hangTimer: TimerHandle | null = null;
  let stopped = false;

  const scheduleReload = (why: string) => {
    if (stopped || reloadTimer !== null) return;
    const delayMs = backoffDelayMs(attempt, initialMs, maxMs);
    attempt += 1;
    options.log(`kiosk: ${why}; loading the page again in ${delayMs} ms`);
    reloadTimer = clock.setTimeout(() => {
      reloadTimer = null;
      if (stopped || window.isDestroyed()) return;
      window.loadURL(options.url()).catch((error: unknown) => options.log(`kiosk: loading ${options.url()} failed: ${(error as Error).message}`));
    }, delayMs);
  };
  const clearHang = () => {
    if (hangTimer !== null) clock.clearTimeout(hangTimer);
    hangTimer = null;
  };

  contents.on('render-process-gone', (_event, details) => {
    clearHang();
    scheduleReload(`the page's process is gone (${details.reason}, exit code ${details.exitCode})`);
  });
  window.on('unresponsive', () => {
    if (hangTimer !== null) return;
    hangTimer = clock.setTimeout(() => {
      hangTimer = null;
      options.log(`kiosk: the page has not responded for ${hangTimeoutMs} ms; restarting its process`);
      // render-process-gone follows, which loads the page again.
      contents.forcefullyCrashRenderer();
    }, hangTimeoutMs);
  });
  window.on('responsive', clearHang);
  contents.on('did-fail-load', (_event, errorCode, errorDescription, validatedURL, isMainFrame) => {
    if (!isMainFrame || errorCode === ERR_ABORTED) return;
    scheduleReload(`${validatedURL} did not load (${errorCode} ${errorDescription})`);
  });
  contents.on('did-finish-load', () => {
    attempt = 0;
  });
  return {
    stop() {
      stopped = true;
      clearHang();
      if (reloadTimer !== null) clock.clearTimeout(reloadTimer);
      reloadTimer = null;
    },
  };
}
