// What the dashboard's browser suites share: the build they serve, sign-in, moving between
// pages, a merchant's owner made through the API, and screenshots at the kiosk sizes.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { ensureDashboardBuilt } from '@tapline/dashboard/build';
import { ADMIN, type TestServer, uniqueHandle } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
/** Built once for every suite (a fresh build is reused: ensureDashboardBuilt). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../test-artifacts/dashboard-build/', import.meta.url));
export const PASSWORD = 'a long enough password';
export const DESKTOP = { width: 1366, height: 768 };
export const KIOSK = { width: 1024, height: 768 };
export const PHONE = { width: 390, height: 844 };
export const LAPTOP = { width: 1280, height: 800 };
export const SMALL = { width: 800, height: 600 };
const SIZES = { '1366x768': DESKTOP, '1280x800': LAPTOP, '1024x768': KIOSK, '800x600': SMALL, '390x844': PHONE } as const;
export type ShotSize = keyof typeof SIZES;

/** The dashboard built for the suites, and the screenshots' folder. */
export async function prepareDashboard(): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await ensureDashboardBuilt(DASHBOARD_DIR);
}

/** Full-page screenshots, at 1366x768 and 1024x768 unless told (1280x800, 800x600, 390x844 too; test-artifacts/dashboard/<prefix>-<name>-<size>.png), none wider than the window. */
export async function shoot(page: Page, prefix: string, name: string, sizes: readonly ShotSize[] = ['1366x768', '1024x768']): Promise<void> {
  for (const [label, viewport] of sizes.map((size) => [size, SIZES[size]] as const)) {
    await page.setViewportSize(viewport);
    // Two frames: the chart library redraws on its ResizeObserver's next callback.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await page.screenshot({ path: `${ARTIFACTS}${prefix}-${name}-${label}.png`, fullPage: true });
    // A page wider than the window hides its last column behind a sideways scroll.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(overflow <= 0, `${name} at ${label} is ${overflow} px wider than the window`);
    // On a phone the menu wraps and lists scroll in their own box: checked there as on a desktop.
    if (viewport.width < 600) await assertAccessible(page, `${name} at ${label}`);
  }
  await page.setViewportSize(DESKTOP);
}

export async function signIn(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.locator('input[name=email]').fill(email);
  await page.locator('input[name=password]').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('nav a[href="#/overview"]').waitFor();
}

/** Follows the menu entry of a page (its route name) and waits for its heading. */
export async function openPage(page: Page, route: string): Promise<void> {
  await page.locator(`nav a[href="#/${route}"]`).click();
  // The menu marks the page in the same update that replaces the main content: after it, no
  // element of the previous page is left to be mistaken for this one's.
  await page.locator(`nav a[href="#/${route}"][aria-current="page"]`).waitFor();
  await page.locator('main h1').waitFor();
}

/** A user of the merchant with a password, through the API: the owner's set-up link, or an owner's invitation. */
export async function dashboardUser(server: TestServer, merchant: { id: string; testKey: string }, email: string, role: 'owner' | 'manager' | 'viewer' = 'owner'): Promise<void> {
  const link = role === 'owner'
    ? await server.request('POST', `/api/admin/merchants/${merchant.id}/owner`, { headers: ADMIN, body: { email } })
    : await server.request('POST', '/api/merchant/users', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { email, role } });
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const token = String(link.body.setupUrl ?? link.body.inviteUrl).split('/setup/')[1]!;
  const accepted = await server.request('POST', '/api/dashboard/links/accept', { body: { token, password: PASSWORD } });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
}

/** The merchant's owner with PASSWORD, through the set-up link's API, under a fresh address: answers it. */
export async function dashboardOwner(server: TestServer, merchant: { id: string; testKey: string }): Promise<string> {
  const email = `owner.${uniqueHandle('x')}@example.com`;
  await dashboardUser(server, merchant, email);
  return email;
}
