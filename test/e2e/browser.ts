// Chromium for the e2e tests: Debian's binary (never a downloaded one), with the flags this
// sandbox needs, and pages that collect script errors so a test can assert there were none.
import { type Browser, type BrowserContextOptions, type Page, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A page in a new context; its script errors go to `pageErrors`. */
export async function trackedPage(browser: Browser, options: BrowserContextOptions, pageErrors: string[]): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // Expected API refusals (a wrong PIN's 403) are logged as failed resources; scripts must not fail.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
  return page;
}

/**
 * Waits until `expression` is truthy in the page. Playwright's waitForFunction polls a string
 * predicate with eval inside the page, which our pages' Content-Security-Policy refuses whenever
 * the first check is not already true; page.evaluate runs outside the page's CSP.
 */
export async function waitForExpression(page: Page, expression: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
