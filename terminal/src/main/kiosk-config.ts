import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PairedTerminalInfo } from '../preload/api.ts';

/**
 * The kiosk app's own settings, in kiosk-config.json in the app's data folder (Linux
 * ~/.config/Tapline Terminal, Windows %APPDATA%\Tapline Terminal): written by the first-start
 * page, read at every start. Environment variables of the same meaning win over it.
 */
export interface KioskConfig {
  /** The sync server the host forwards /api and the replica's socket.io to. */
  syncServerUrl: string | null;
  /** The terminal the first start paired this kiosk as (its token is the page's, never in this file). */
  terminal: PairedTerminalInfo | null;
  /** electron-updater's channel: "latest" (stable) or "beta". */
  updateChannel: string;
  /** A generic update server other than the one built into the package (app-update.yml). */
  updateUrl: string | null;
  /**
   * Hardware and host settings by their environment variable names (PRINTER, NFC_READER,
   * TERMINAL_PORT...), so a kiosk is configured in one file instead of its service's environment.
   */
  env: Record<string, string>;
}

export const KIOSK_CONFIG_FILE = 'kiosk-config.json';
export const UPDATE_CHANNELS: ReadonlySet<string> = new Set(['latest', 'beta']);

/** The environment variables kiosk-config.json may set (see the host's and hardware's READMEs). */
export const CONFIG_ENV_KEYS: ReadonlySet<string> = new Set([
  'TERMINAL_PORT',
  'NFC_READER',
  'NFC_DEBOUNCE_MS',
  'PRINTER',
  'PRINTER_PAPER',
  'PRINTER_LANGUAGE',
  'PRINTER_QUEUE_DIR',
  'PRINTER_PREVIEW_DIR',
  'PRINTER_STATUS_INTERVAL_MS',
  'PRINTER_DRAWER_PIN',
  'PRINTER_DRAWER_OPEN_WHEN',
  'PUBLIC_BASE_URL',
  'KIOSK_CUSTOMER_DISPLAY',
  'KIOSK_DISPLAY_LISTEN',
]);

export class KioskConfigError extends Error {
  override readonly name = 'KioskConfigError';
}

/**
 * A sync server address as the kiosk keeps it: http or https, a host, no credentials, query or
 * fragment; a path prefix is kept (a server behind a reverse proxy), without its trailing slash.
 * Answers null for anything else.
 */
export function parseSyncServerUrl(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.hostname === '' || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Reads and checks the file; a missing file is the first start (defaults). */
export function readKioskConfig(userDataDir: string): KioskConfig {
  const file = join(userDataDir, KIOSK_CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { syncServerUrl: null, terminal: null, updateChannel: 'latest', updateUrl: null, env: {} };
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new KioskConfigError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new KioskConfigError(`${file} must hold a JSON object`);
  const given = raw as Record<string, unknown>;
  const problems: string[] = [];
  const syncServerUrl = given.syncServerUrl === undefined || given.syncServerUrl === null ? null : parseSyncServerUrl(given.syncServerUrl);
  if (given.syncServerUrl !== undefined && given.syncServerUrl !== null && syncServerUrl === null) problems.push('syncServerUrl must be an http(s) address');
  const terminal = given.terminal === undefined || given.terminal === null ? null : pairedTerminalInfo(given.terminal);
  if (given.terminal !== undefined && given.terminal !== null && terminal === null) problems.push('terminal must be {id, name, merchant} (strings)');
  const updateChannel = given.updateChannel ?? 'latest';
  if (typeof updateChannel !== 'string' || !UPDATE_CHANNELS.has(updateChannel)) problems.push(`updateChannel must be one of ${[...UPDATE_CHANNELS].join(', ')}`);
  const updateUrl = given.updateUrl === undefined || given.updateUrl === null ? null : parseSyncServerUrl(given.updateUrl);
  if (given.updateUrl !== undefined && given.updateUrl !== null && updateUrl === null) problems.push('updateUrl must be an http(s) address');
  const env: Record<string, string> = {};
  if (given.env !== undefined) {
    if (typeof given.env !== 'object' || given.env === null || Array.isArray(given.env)) problems.push('env must be an object of strings');
    else
      for (const [key, value] of Object.entries(given.env)) {
        if (!CONFIG_ENV_KEYS.has(key)) problems.push(`env.${key} is not a setting the kiosk knows (${[...CONFIG_ENV_KEYS].join(', ')})`);
        else if (typeof value !== 'string') problems.push(`env.${key} must be a string`);
        else env[key] = value;
      }
  }
  if (problems.length > 0) throw new KioskConfigError(`${file}: ${problems.join('; ')}`);
  return { syncServerUrl, terminal, updateChannel: updateChannel as string, updateUrl, env };
}

/** {id, name, merchant} as strings of sane length; null for anything else. */
export function pairedTerminalInfo(value: unknown): PairedTerminalInfo | null {
  if (typeof value !== 'object' || value === null) return null;
  const { id, name, merchant } = value as Record<string, unknown>;
  const short = (text: unknown): text is string => typeof text === 'string' && text.length > 0 && text.length <= 200;
  return short(id) && short(name) && short(merchant) ? { id, name, merchant } : null;
}

/** Writes the file whole (a temporary file renamed over it), readable by the kiosk's user only. */
export function writeKioskConfig(userDataDir: string, config: KioskConfig): void {
  const file = join(userDataDir, KIOSK_CONFIG_FILE);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * The environment the host starts with: the file's settings under the real environment (which
 * wins), and the print queue and previews in the data folder rather than the working directory
 * (a kiosk's service may start anywhere, even in a read-only folder).
 */
export function hostEnvironment(config: KioskConfig, env: NodeJS.ProcessEnv, userDataDir: string): NodeJS.ProcessEnv {
  // An empty variable counts as unset, as a service file's `Environment=PRINTER=` means.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  return {
    PRINTER_QUEUE_DIR: join(userDataDir, 'print-queue'),
    PRINTER_PREVIEW_DIR: join(userDataDir, 'printer-preview'),
    ...config.env,
    ...set,
  };
}
