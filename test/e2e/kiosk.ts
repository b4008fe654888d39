// The kiosk terminal as both terminal suites run it: the renderer built once per file, and a
// host with the simulated reader and a VirtualPrinter in front of a test sync server.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import type { Page } from 'playwright-core';
import { SimulatedNfcReader } from '@tapline/hardware/src/nfc/index.ts';
import { VirtualPrinter } from '@tapline/hardware/src/printer/index.ts';
import { buildRenderer, startTerminalHost, type TerminalHost } from '@tapline/terminal/host';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
/** A countertop kiosk screen. */
export const KIOSK = { viewport: { width: 1024, height: 768 } };

/** Builds the renderer into a folder of its own, removed when the file's tests end. */
export async function builtRenderer(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tapline-terminal-renderer-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  await buildRenderer(dir);
  return dir;
}

export interface Kiosk {
  host: TerminalHost;
  reader: SimulatedNfcReader;
  printer: VirtualPrinter;
}

/**
 * The host against `syncServerUrl` (the server itself, or a relay in front of it); the reader's
 * tags point at `serverUrl`. Receipt previews go to test-artifacts/<previews>.
 */
export async function startKiosk(options: { rendererDir: string; serverUrl: string; syncServerUrl?: string; previews: string }): Promise<Kiosk> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // No debounce: each test taps its own ring once, and two tests must not swallow each other's tap.
  const reader = new SimulatedNfcReader({ baseUrl: options.serverUrl, debounceWindowMs: 0 });
  const printer = new VirtualPrinter({ previewDirectory: join(ARTIFACTS, options.previews) });
  const host = await startTerminalHost({
    syncServerUrl: options.syncServerUrl ?? options.serverUrl,
    port: 0,
    staticDir: options.rendererDir,
    nfc: reader,
    printer,
    receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos' },
    log: () => undefined,
  });
  return { host, reader, printer };
}

/** Replication retries every 2 s and socket.io reconnects within 2 s: settled well inside this. */
export const SYNC_WAIT = { timeout: 20_000 };

/** Signs the kiosk page in with a terminal token and waits for the reader and the sync connection. */
export async function signInKiosk(page: Page, host: TerminalHost, terminalToken: string): Promise<void> {
  await page.goto(host.url);
  await page.fill('#token', `term.${terminalToken}`);
  await page.click('#signin-button');
  await page.locator('#sale').waitFor({ state: 'visible' });
  await page.locator('#status-reader[data-state="ready"]').waitFor();
  await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
}
