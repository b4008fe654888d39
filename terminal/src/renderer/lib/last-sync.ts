/**
 * When the terminal last heard from the sync server, kept in localStorage per terminal so the
 * status bar says it after a reload too (and not "never" while offline).
 */
const KEY_PREFIX = 'tapline.lastSyncAt.';

export function loadLastSync(terminalId: string): string | null {
  return localStorage.getItem(KEY_PREFIX + terminalId);
}

export function saveLastSync(terminalId: string, at: string): void {
  localStorage.setItem(KEY_PREFIX + terminalId, at);
}
