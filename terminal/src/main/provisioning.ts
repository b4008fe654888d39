import { pathToFileURL } from 'node:url';
import type { Answer, Unchecked } from '@tapline/shared/api';
import { IPC, type PairedTerminalInfo, type ProvisioningAnswer, type ProvisioningErrorCode, type ProvisioningState } from '../preload/api.ts';
import type { IpcMainInvokeEventLike, IpcMainLike, KioskWindow } from './electron-like.ts';
import { type KioskConfig, parseSyncServerUrl, writeKioskConfig } from './kiosk-config.ts';

const HEALTH_TIMEOUT_MS = 5000;
const PAIR_TIMEOUT_MS = 10_000;
/** The server's pairing code: 8 of these (no 0/O, 1/I/L), typed with any case, spaces or dashes. */
const PAIRING_CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/;

export type ServerCheck = { ok: true } | { ok: false; code: 'unreachable' | 'not_tapline'; message: string };

/** What the server answers a pairing code with (POST /api/terminals/pair). */
export type PairResult = { ok: true; token: string; terminal: PairedTerminalInfo } | { ok: false; code: ProvisioningErrorCode; message: string };

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
  const body = (await response.json().catch(() => null)) as Unchecked<Answer<'GET', '/api/health'>> | null;
  if ((response.status === 200 || response.status === 503) && typeof body?.ok === 'boolean' && typeof body.uptime === 'number') return { ok: true };
  return { ok: false, code: 'not_tapline', message: `${syncServerUrl}/api/health answered ${response.status}, not a Tapline sync server's health` };
}

/** The code as the server keeps it (upper case, no spaces or dashes), or why it cannot be one. */
export function canonicalPairingCode(typed: unknown): { ok: true; code: string } | { ok: false; code: 'pairing_code_missing' | 'pairing_code_invalid' } {
  const text = typeof typed === 'string' ? typed.toUpperCase().replace(/[\s-]+/g, '') : '';
  if (text === '') return { ok: false, code: 'pairing_code_missing' };
  return PAIRING_CODE.test(text) ? { ok: true, code: text } : { ok: false, code: 'pairing_code_invalid' };
}

const SERVER_PAIRING_CODES: ReadonlySet<string> = new Set(['pairing_code_invalid', 'pairing_code_not_found', 'pairing_code_expired', 'pairing_code_used', 'pairing_locked', 'rate_limited']);

/** Exchanges a pairing code for the terminal's token at <url>/api/terminals/pair. */
export async function pairWithServer(syncServerUrl: string, code: string, timeoutMs = PAIR_TIMEOUT_MS): Promise<PairResult> {
  let response: Response;
  try {
    response = await fetch(`${syncServerUrl}/api/terminals/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }), signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    return { ok: false, code: 'unreachable', message: `${syncServerUrl} did not answer: ${(error as Error).message}` };
  }
  const body = (await response.json().catch(() => null)) as (Unchecked<Answer<'POST', '/api/terminals/pair'>> & { code?: unknown; error?: unknown }) | null;
  if (response.ok) {
    const terminal = body?.terminal;
    // The server answers the bare token; the page signs in with `term.<token>`.
    if (typeof body?.token === 'string' && /^[0-9a-f]{64}$/.test(body.token) && typeof terminal?.id === 'string' && typeof terminal.name === 'string' && typeof terminal.merchant?.name === 'string')
      return { ok: true, token: `term.${body.token}`, terminal: { id: terminal.id, name: terminal.name, merchant: terminal.merchant.name } };
    return { ok: false, code: 'not_tapline', message: `${syncServerUrl}/api/terminals/pair answered without a terminal token` };
  }
  const refusal: ProvisioningErrorCode = typeof body?.code === 'string' && SERVER_PAIRING_CODES.has(body.code) ? (body.code as ProvisioningErrorCode) : 'pairing_failed';
  return { ok: false, code: refusal, message: typeof body?.error === 'string' ? body.error : `pairing answered HTTP ${response.status}` };
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
  pair?: (syncServerUrl: string, code: string) => Promise<PairResult>;
  /** How long the page shows "Paired as ..." before the till replaces it. Default 1.5 s. */
  pauseMs?: number;
  log: (line: string) => void;
}

export interface Provisioned {
  config: KioskConfig;
  /** The terminal token the pairing gave, for the till page (null: saved without pairing). */
  token: string | null;
}

/**
 * The first start (or `--provision`): the window shows the first-start page, which asks for
 * the sync server's address and the terminal's pairing code. The address must be an http(s)
 * URL whose /api/health answers as a Tapline server; the code is checked here (8 letters and
 * digits) and exchanged at the server for the terminal's token. Then kiosk-config.json in the
 * app's data folder keeps the address and which terminal this is (never the code, which is
 * single use, nor the token, which the till page is handed once and keeps). When the server does
 * not answer, the page may keep the address anyway without pairing: the till's own pairing
 * screen asks for the code once the server is up. Only the first-start page may call these.
 */
export async function provision(options: ProvisioningOptions): Promise<Provisioned> {
  const { ipcMain } = options;
  const pageUrl = pathToFileURL(options.pageFile).href;
  const check = options.checkServer ?? checkSyncServer;
  const pair = options.pair ?? pairWithServer;
  const fromPage = (event: IpcMainInvokeEventLike) => event.sender === options.window.webContents && event.senderFrame?.parent === null && event.senderFrame.url.split('#')[0] === pageUrl;
  let finish: (done: Provisioned) => void = () => undefined;
  const done = new Promise<Provisioned>((resolve) => (finish = resolve));
  let busy = false;

  const save = async (given: { syncServerUrl?: unknown; pairingCode?: unknown; force?: unknown }): Promise<ProvisioningAnswer> => {
    const syncServerUrl = parseSyncServerUrl(given.syncServerUrl);
    if (syncServerUrl === null) return { ok: false, code: 'invalid_url', message: 'the address must be http:// or https:// with a host, without a user, query or fragment' };
    const force = given.force === true;
    let token: string | null = null;
    let terminal: PairedTerminalInfo | null = null;
    if (!force) {
      const code = canonicalPairingCode(given.pairingCode);
      if (!code.ok) return { ok: false, code: code.code, message: code.code === 'pairing_code_missing' ? 'type the pairing code' : 'a pairing code has 8 letters and digits, like ABCD-EFGH' };
      const checked = await check(syncServerUrl);
      if (!checked.ok) return checked;
      const paired = await pair(syncServerUrl, code.code);
      if (!paired.ok) return paired;
      ({ token, terminal } = paired);
    }
    const config: KioskConfig = { ...options.config, syncServerUrl, terminal: terminal ?? (force ? options.config.terminal : null) };
    writeKioskConfig(options.userDataDir, config);
    options.log(`kiosk: sync server set to ${syncServerUrl}${terminal ? `, paired as terminal ${terminal.id}` : ' (not checked, not paired)'}`);
    // The answer reaches the page now; the till replaces it once the cashier could read it.
    setTimeout(() => finish({ config, token }), options.pauseMs ?? 1500);
    return { ok: true, syncServerUrl, terminal };
  };

  ipcMain.handle(IPC.provisioningState, (event): ProvisioningState => {
    if (!fromPage(event)) throw new Error('provisioning is answered for the first-start page only');
    return { syncServerUrl: options.config.syncServerUrl, terminal: options.config.terminal };
  });
  ipcMain.handle(IPC.provisioningSave, async (event, body: unknown): Promise<ProvisioningAnswer> => {
    if (!fromPage(event)) return { ok: false, code: 'forbidden', message: 'provisioning is answered for the first-start page only' };
    // One at a time: a double press must not spend the single-use code twice.
    if (busy) return { ok: false, code: 'forbidden', message: 'the previous answer is still being checked' };
    busy = true;
    try {
      return await save(typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {});
    } finally {
      busy = false;
    }
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
