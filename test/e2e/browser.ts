// Chromium for the e2e tests: Debian's binary (never a downloaded one), with the flags this
// sandbox needs, and pages that collect script errors so a test can assert there were none.
import { type Browser, type BrowserContextOptions, type Page, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * Console errors Chromium itself logs that are not script failures:
 * - an expected API refusal (a wrong PIN's 403) is logged as a failed resource;
 * - a WebSocket frame sent in the moment between the server closing the connection and the page
 *   hearing of it (a server stopped mid-ping or mid-report). socket.io's transport wraps send()
 *   and reports the close next; the kiosk fails what was waiting for an answer and sends it again
 *   after it reconnects, which the reconnection tests assert by counting what settled.
 */
const BROWSER_NOTICES = ['Failed to load resource', 'WebSocket is already in CLOSING or CLOSED state'];

/** A page in a new context; its script errors go to `pageErrors`. */
export async function trackedPage(browser: Browser, options: BrowserContextOptions, pageErrors: string[]): Promise<Page> {
  const context = await browser.newContext(options);
  // Every wait of Playwright's is on a condition; its ceiling generous enough for a loaded CI machine.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !BROWSER_NOTICES.some((notice) => message.text().startsWith(notice))) pageErrors.push(message.text());
  });
  return page;
}

/**
 * Waits until `expression` is truthy in the page. Playwright's waitForFunction polls a string
 * predicate with eval inside the page, which our pages' Content-Security-Policy refuses whenever
 * the first check is not already true; page.evaluate runs outside the page's CSP.
 */
export async function waitForExpression(page: Page, expression: string, timeout = 60_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
