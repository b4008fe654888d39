// The kiosk terminal as the kiosk suites run it: the renderer built once per run, a host with the
// simulated reader and a VirtualPrinter in front of a test sync server (through a relay the test
// can cut: useKioskRig), and the layout checks every kiosk screen takes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import { buildRenderer, isRendererBuildFresh, startTerminalHost, type TerminalHost } from '@tapline/terminal/host';
import type { TestServer } from '@tapline/sync-server/testing';
import { launchChromium, waitForExpression } from './browser.ts';
import { type Relay, startRelay } from './relay.ts';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
/** A countertop kiosk screen. */
export const KIOSK = { viewport: { width: 1024, height: 768 } };

/** The renderer the test runner builds once per run (scripts/build-front-ends.ts). */
export const TEST_RENDERER_DIR = fileURLToPath(new URL('../../test-artifacts/terminal-renderer/', import.meta.url));

/**
 * The renderer of the current sources: the runner's build while its stamp says it is fresh (the
 * tests only read it), else a build into a folder of its own, removed when the file's tests end (a
 * file run alone with `node --test`, or sources changed since the run began).
 */
export async function builtRenderer(): Promise<string> {
  if (await isRendererBuildFresh(TEST_RENDERER_DIR)) return TEST_RENDERER_DIR;
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
export async function startKiosk(options: { rendererDir: string; serverUrl: string; syncServerUrl?: string; previews: string; port?: number; displayListen?: { host: string; port: number } }): Promise<Kiosk> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // No debounce: each test taps its own ring once, and two tests must not swallow each other's tap.
  const reader = new SimulatedNfcReader({ baseUrl: options.serverUrl, debounceWindowMs: 0 });
  const printer = new VirtualPrinter({ previewDirectory: join(ARTIFACTS, options.previews) });
  const host = await startTerminalHost({
    syncServerUrl: options.syncServerUrl ?? options.serverUrl,
    port: options.port ?? 0,
    staticDir: options.rendererDir,
    nfc: reader,
    printer,
    receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos' },
    // A tablet's LAN listener only where a test asks for one (the default is none, as in a shop).
    displayListen: options.displayListen ?? null,
    log: () => undefined,
  });
  return { host, reader, printer };
}

/** Chromium and a kiosk behind a relay the test can cut, for one describe block (useKioskRig). */
export interface KioskRig extends Kiosk {
  browser: Browser;
  relay: Relay;
  /** Script errors of the pages opened with trackedPage(rig.browser, ..., rig.pageErrors). */
  pageErrors: string[];
}

/**
 * The kiosk suites' rig: Chromium, a relay in front of the test server (cut and restored by the
 * tests) and the kiosk host behind it, started before the block's tests and closed after them.
 * The relay is restored after each test: one failing while the shop is cut off must not leave the
 * next one offline. With `noPageErrors`, the block ends by asserting that no page logged a script
 * error (a page closed while its sync socket is open may log that the socket closed; nothing else).
 * The fields are set once the block's `before` ran: read them inside tests and hooks.
 */
export function useKioskRig(server: () => TestServer, options: { rendererDir: string; previews: string; noPageErrors?: boolean }): KioskRig {
  const rig = { pageErrors: [] as string[] } as unknown as KioskRig;
  before(async () => {
    rig.browser = await launchChromium();
    rig.relay = await startRelay(server().baseUrl);
    Object.assign(rig, await startKiosk({ rendererDir: options.rendererDir, serverUrl: server().baseUrl, syncServerUrl: rig.relay.url, previews: options.previews }));
  });
  afterEach(() => rig.relay?.restore());
  after(async () => {
    await rig.browser?.close();
    await rig.host?.close();
    await rig.relay?.close();
    if (options.noPageErrors) {
      assert.deepEqual(rig.pageErrors.filter((error) => !error.includes('WebSocket is already in CLOSING or CLOSED state')), [], 'no script error on the page');
    }
  });
  return rig;
}

/** Replication retries every 2 s and socket.io reconnects within 2 s: a ceiling generous enough for a loaded CI machine. */
export const SYNC_WAIT = { timeout: 60_000 };

/**
 * Signs the kiosk page in with a terminal token (the support path behind the sign-in screen's
 * link: pairing would give the terminal a new token) and waits for the reader and the sync connection.
 */
export async function signInKiosk(page: Page, host: TerminalHost, terminalToken: string): Promise<void> {
  await page.goto(host.url);
  await page.click('#show-advanced');
  await page.fill('#token', `term.${terminalToken}`);
  await page.click('#signin-button');
  await page.locator('#sale').waitFor({ state: 'visible' });
  await page.locator('#status-reader[data-state="ready"]').waitFor();
  await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
  // "Online" is socket.io's connect; the server's hello (offline limits, QR keys, the terminal's
  // language) follows it. A test that cuts the connection next needs the hello to have arrived.
  await waitForExpression(page, "localStorage.getItem('tapline.syncHello') !== null", SYNC_WAIT.timeout);
}

/** The screen sizes of countertop kiosks and tablets the sale screen must fit without scrolling. */
export const KIOSK_SIZES = [
  { width: 800, height: 600 },
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

/** Smallest comfortable touch target (WCAG 2.5.5's 44 px, rounded up as Material does). */
export const TOUCH_TARGET_PX = 48;

/**
 * Every visible control inside `root` (buttons, inputs, selects, textareas) lies wholly inside
 * the viewport and above the status bar, and every button is at least TOUCH_TARGET_PX in both
 * directions. Answers how many controls it checked.
 */
export async function assertControlsOnScreen(page: Page, root: string, label: string): Promise<number> {
  const viewport = page.viewportSize();
  assert.ok(viewport);
  const bar = await page.locator('#status-bar').boundingBox();
  const bottom = bar?.y ?? viewport.height;
  const controls = page.locator(`${root} button:visible, ${root} input:visible, ${root} select:visible, ${root} textarea:visible`);
  const count = await controls.count();
  assert.ok(count > 0, `${label}: no controls found in ${root}`);
  for (let index = 0; index < count; index += 1) {
    const control = controls.nth(index);
    const box = await control.boundingBox();
    const name = `${label}: ${(await control.getAttribute('id')) ?? (await control.innerText().catch(() => '')) ?? index}`;
    assert.ok(box, `${name} has a box`);
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width + 0.5 && box.y + box.height <= bottom + 0.5, `${name} is on screen: ${JSON.stringify(box)} in ${viewport.width}x${viewport.height}, status bar at ${bottom}`);
    assert.ok(box.height >= TOUCH_TARGET_PX - 0.5 && box.width >= TOUCH_TARGET_PX - 0.5, `${name} is a touch target of at least ${TOUCH_TARGET_PX} px: ${box.width}x${box.height}`);
  }
  return count;
}

/** A catalogue product made through the merchant API (POST /api/merchant/products, 201 asserted), as the kiosk tests stock their till. */
export async function createMerchantProduct<T = { id: string }>(s: TestServer, key: Record<string, string>, body: Record<string, unknown>): Promise<T> {
  const made = await s.request<T>('POST', '/api/merchant/products', { headers: key, body });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body;
}
