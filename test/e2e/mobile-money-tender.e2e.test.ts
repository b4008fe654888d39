// The kiosk's Mobile money screen (terminal/src/renderer/screens/MobileMoneyTender.svelte) in
// Chromium against the real sync server's sandbox, before it is wired into the till's tender flow:
// a harness page mounts the screen alone with the kiosk's own api layer, behind the terminal host
// (which forwards /api to the server). The number typed on the keypad, Send, the countdown, the
// tender handed to onPaid; a declined number said in words with Try again / Another tender; a
// reload resuming the wait, Stop waiting; and the offline notice.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { trackedPage, waitForExpression } from './browser.ts';
import { KIOSK } from './kiosk.ts';
import { RENDERER, buildScreenHarness, useScreenHarness } from './screen-harness.ts';
import { shopWithTerminal } from './shop.ts';

/** The screen alone on a page: props from the query string, what it hands back on window. */
function buildHarness(): Promise<string> {
  return buildScreenHarness('momo', {
    body: '<main id="app" style="height:100vh"></main>',
    main: `
import { mount } from 'svelte';
import Screen from ${JSON.stringify(join(RENDERER, 'screens/MobileMoneyTender.svelte'))};
import { createApi } from ${JSON.stringify(join(RENDERER, 'lib/api.ts'))};
import ${JSON.stringify(join(RENDERER, 'styles.css'))};
const params = new URLSearchParams(location.search);
const w = window as unknown as { paid: unknown; backs: number };
w.paid = null;
w.backs = 0;
mount(Screen, {
  target: document.getElementById('app')!,
  props: {
    api: createApi(params.get('token') ?? ''),
    terminalId: params.get('terminal') ?? '',
    amountMinor: Number(params.get('amount')),
    currency: params.get('currency') ?? 'NGN',
    country: 'NG',
    offline: params.get('offline') === '1',
    onPaid: (tender: unknown) => { w.paid = tender; },
    onBack: () => { w.backs += 1; },
  },
});
`,
  });
}

const harnessDir = await buildHarness();

for (const target of await databaseTargets()) {
  describe(`the Mobile money screen in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20, env: { SANDBOX_STEP_MS: '400', COLLECTION_TIMEOUT_SECONDS: '120' } });
    const kiosk = useScreenHarness(server, { rendererDir: harnessDir, previews: 'mobile-money' });

    async function open(query: Record<string, string>): Promise<Page> {
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await page.goto(`${kiosk.host.url}/?${new URLSearchParams(query).toString()}`);
      await page.locator('#mobile-money-tender').waitFor();
      return page;
    }

    async function typePhone(page: Page, phone: string): Promise<void> {
      for (const key of phone) await page.click(key === '+' ? '#momo-key-plus' : `#momo-key-${key}`);
      assert.equal(await page.locator('#momo-phone').textContent(), phone);
    }

    it('takes a number on the keypad, waits with a countdown, and hands the paid tender over; the kept request is forgotten', async () => {
      const shop = await shopWithTerminal(server(), { fund: 0 });
      const page = await open({ token: `term.${shop.terminalToken}`, terminal: shop.terminalId, amount: '250000', currency: 'NGN' });
      assert.equal(await page.locator('#momo-send').isDisabled(), true, 'nothing to send yet');
      await page.locator('#momo-test-hint').waitFor();
      await typePhone(page, '08031234567');
      await page.click('#momo-send');
      await page.locator('#momo-waiting').waitFor();
      assert.match((await page.locator('#momo-countdown').textContent()) ?? '', /Time left: [12]:\d\d/);
      assert.match((await page.locator('#momo-waiting').textContent()) ?? '', /\+234•+567/);
      await waitForExpression(page, 'window.paid !== null');
      const tender = await page.evaluate<{ kind: string; amountMinor: number; reference: string }>('window.paid');
      assert.equal(tender.kind, 'mobile_money');
      assert.equal(tender.amountMinor, 250_000);
      const collection = await server().request<{ status: string; amountMinor: number }>('GET', `/api/pos/collections/${tender.reference}`, { headers: { authorization: `Bearer term.${shop.terminalToken}` } });
      assert.deepEqual([collection.body.status, collection.body.amountMinor], ['completed', 250_000]);
      await page.locator('#momo-paid').waitFor();
      assert.equal(await page.evaluate(`localStorage.getItem('tapline.mobileMoney.${shop.terminalId}')`), null);
      await page.context().close();
    });

    it('says a declined payment in words and offers Try again and Another tender', async () => {
      const shop = await shopWithTerminal(server(), { fund: 0 });
      const page = await open({ token: `term.${shop.terminalToken}`, terminal: shop.terminalId, amount: '1000', currency: 'NGN' });
      await page.keyboard.type('08031230002');
      await page.keyboard.press('Enter');
      await page.locator('#momo-failed').waitFor();
      assert.equal(await page.locator('#momo-failed').getAttribute('data-code'), 'declined');
      assert.match((await page.locator('#momo-failed').textContent()) ?? '', /The customer declined the payment on their phone\./);
      await page.click('#momo-retry');
      await page.locator('#momo-send').waitFor();
      assert.equal(await page.locator('#momo-phone').textContent(), '08031230002', 'the number stays for another try');
      await page.click('#momo-back');
      assert.equal(await page.evaluate<number>('window.backs'), 1);
      await page.context().close();
    });

    it('resumes the wait after a reload, and Stop waiting ends it', async () => {
      const shop = await shopWithTerminal(server(), { fund: 0 });
      const page = await open({ token: `term.${shop.terminalToken}`, terminal: shop.terminalId, amount: '5000', currency: 'NGN' });
      await typePhone(page, '08031230004');
      await page.click('#momo-send');
      await page.locator('#momo-waiting').waitFor();
      const id = await page.locator('#mobile-money-tender').getAttribute('data-collection');
      await page.reload();
      await page.locator('#momo-waiting').waitFor();
      assert.equal(await page.locator('#mobile-money-tender').getAttribute('data-collection'), id, 'the same request, not a new one');
      assert.match((await page.locator('#momo-waiting').textContent()) ?? '', /Still waiting/);
      await page.click('#momo-cancel');
      await page.locator('#momo-failed').waitFor();
      assert.equal(await page.locator('#momo-failed').getAttribute('data-code'), 'cancelled');
      const rows = await server().db.query<{ n: number }>('SELECT count(*)::int AS n FROM pos_collections WHERE terminal_id = $1', [shop.terminalId]);
      assert.equal(Number(rows[0]?.n), 1);
      await page.context().close();
    });

    it('offline: says why mobile money cannot be taken and offers another tender', async () => {
      const shop = await shopWithTerminal(server(), { fund: 0 });
      const page = await open({ token: `term.${shop.terminalToken}`, terminal: shop.terminalId, amount: '5000', currency: 'NGN', offline: '1' });
      await page.locator('#momo-offline').waitFor();
      assert.match((await page.locator('#momo-offline').textContent()) ?? '', /offline, so it cannot ask the customer's phone to pay/);
      assert.equal(await page.locator('#momo-send').isDisabled(), true);
      assert.equal(await page.locator('#momo-key-1').isDisabled(), true);
      await page.click('#momo-back');
      assert.equal(await page.evaluate<number>('window.backs'), 1);
      await page.context().close();
    });
  });
}
