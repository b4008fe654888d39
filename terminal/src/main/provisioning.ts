import { pathToFileURL } from 'node:url';
import { IPC, type ProvisioningAnswer, type ProvisioningState } from '../preload/api.ts';
import type { IpcMainInvokeEventLike, IpcMainLike, KioskWindow } from './electron-like.ts';
import { type KioskConfig, parseSyncServerUrl, writeKioskConfig } from './kiosk-config.ts';

const HEALTH_TIMEOUT_MS = 5000;

export type ServerCheck = { ok: true } | { ok: false; code: 'unreachable' | 'not_tapline'; message: string };

/**
 * Is a Tapline sync server there? GET <url>/api/health answers {ok, uptime} with 200, or 503
 * while its database is down (still the right server: the kiosk works offline meanwhile).
 */
export async function checkSyncServer(syncServerUrl: string, timeoutMs = HEALTH_TIMEOUT_MS): Promise<ServerCheck> {
  let response: Response;
  try {
    response = await fetch(`${syncServerUrl}/api/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    return { ok: false, code: 'unreachable', message: `${syncServerUrl} did not answer: ${(error as Error).message}` };
  }
  const body = (await response.json().catch(() => null)) as { ok?: unknown; uptime?: unknown } | null;
  if ((response.status === 200 || response.status === 503) && typeof body?.ok === 'boolean' && typeof body.uptime === 'number') return { ok: true };
  return { ok: false, code: 'not_tapline', message: `${syncServerUrl}/api/health answered ${response.status}, not a Tapline sync server's health` };
}

export interface ProvisioningOptions {
  ipcMain: IpcMainLike;
  window: KioskWindow;
  /** dist/provision/index.html */
  pageFile: string;
  userDataDir: string;
  /** What the file holds now (its other settings are kept). */
  config: KioskConfig;
  checkServer?: (syncServerUrl: string) => Promise<ServerCheck>;
  log: (line: string) => void;
}

/**
 * The first start (or `--provision`): the window shows the first-start page, which asks for
 * the sync server's address. The address is checked (an http(s) URL whose /api/health answers
 * as a Tapline server, unless the page says to keep it anyway), saved in kiosk-config.json in
 * the app's data folder, and the answer is the saved address: the till's own pairing screen
 * then asks for the pairing code. Only the first-start page may call these handlers.
 */
export async function provision(options: ProvisioningOptions): Promise<string> {
  const { ipcMain } = options;
  const pageUrl = pathToFileURL(options.pageFile).href;
  const check = options.checkServer ?? checkSyncServer;
  const fromPage = (event: IpcMainInvokeEventLike) => event.sender === options.window.webContents && event.senderFrame?.parent === null && event.senderFrame.url.split('#')[0] === pageUrl;
  let saved: (syncServerUrl: string) => void = () => undefined;
  const done = new Promise<string>((resolve) => (saved = resolve));

  ipcMain.handle(IPC.provisioningState, (event): ProvisioningState => {
    if (!fromPage(event)) throw new Error('provisioning is answered for the first-start page only');
    return { syncServerUrl: options.config.syncServerUrl };
  });
  ipcMain.handle(IPC.provisioningSave, async (event, body: unknown): Promise<ProvisioningAnswer> => {
    if (!fromPage(event)) return { ok: false, code: 'forbidden', message: 'provisioning is answered for the first-start page only' };
    const given = typeof body === 'object' && body !== null ? (body as { syncServerUrl?: unknown; force?: unknown }) : {};
    const syncServerUrl = parseSyncServerUrl(given.syncServerUrl);
    if (syncServerUrl === null) return { ok: false, code: 'invalid_url', message: 'the address must be http:// or https:// with a host, without a user, query or fragment' };
    if (given.force !== true) {
      const checked = await check(syncServerUrl);
      if (!checked.ok) return checked;
    }
    writeKioskConfig(options.userDataDir, { ...options.config, syncServerUrl });
    options.log(`kiosk: sync server set to ${syncServerUrl}${given.force === true ? ' (not checked)' : ''}`);
    saved(syncServerUrl);
    return { ok: true, syncServerUrl };
  });
  try {
    await options.window.loadFile(options.pageFile);
    options.window.show();
    return await done;
  } finally {
    ipcMain.removeHandler(IPC.provisioningState);
    ipcMain.removeHandler(IPC.provisioningSave);
  }
}
