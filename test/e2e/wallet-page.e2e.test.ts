// The wallet holder's page (/wallet) in Chromium against a real server on each database, in test
// mode (the sandbox answers for the phone and the payout provider): sign in, add money from a
// phone with the fee quoted first, a declined top-up, send money out to a mobile money number
// after a wrong PIN, a withdrawal that fails at the provider and comes back, the recent list, a
// reload that stays signed in, the holder's own account number for a top-up by bank transfer (its
// fee stated first) credited when a sandbox transfer arrives, and the page in French. Screenshots
// under test-artifacts/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage } from './browser.ts';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, balanceMinor, databaseTargets, freePort, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { type FlutterwaveFake, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1024, height: 768 } };

/** Waits until the progress box of a flow shows a final status, driving the payment scheduler meanwhile (tests run no timers). */
async function finalStatus(page: Page, box: string, drive: () => Promise<unknown>, pending: readonly string[]): Promise<string> {
  for (let round = 0; round < 600; round += 1) {
    const status = (await page.locator(box).getAttribute('data-status')) ?? '';
    if (status !== '' && !pending.includes(status)) return status;
    await drive();
    await page.waitForTimeout(100);
  }
  throw new Error(`${box} never ended`);
}

for (const target of await databaseTargets()) {
  describe(`the wallet page in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20, env: { SANDBOX_STEP_MS: '200', WALLET_TOP_UP_FEE_PCT: '1.5', WALLET_WITHDRAWAL_FEE_PCT: '1', WALLET_BANK_TRANSFER_FEE_PCT: '0.5' } });
    let browser: Browser;
    const pageErrors: string[] = [];

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      assert.deepEqual(pageErrors, [], 'no error in the page');
    });

    it('tops up from a phone once (fee quoted first), says why a declined one added nothing, withdraws after a wrong PIN, and gives back a failed withdrawal', async () => {
      const s = server();
      const handle = uniqueHandle('wp');
      await s.createWallet({ handle, pin: '2468', fund: 100 });
      const page = await trackedPage(browser, PHONE, pageErrors);
      await page.goto(`${s.baseUrl}/wallet`);
      await page.screenshot({ path: `${ARTIFACTS}wallet-signin-${target.name}.png`, fullPage: true });
      await page.fill('#handle', `@${handle}`);
      await page.fill('#pin', '2468');
      await page.click('#signin-button');
      await page.locator('#topup-card').waitFor({ state: 'visible' });
      assert.match(await page.locator('#balance').innerText(), /NGN\s*100\.00/);
      assert.equal(await page.locator('#history-empty').isVisible(), true);

      // A top-up: the fee is stated before the phone is asked; the sandbox approves.
      await page.fill('#topup-amount', '50');
      await page.fill('#topup-phone', '0803 123 4567');
      await page.locator('#topup-quote', { hasText: 'Fee NGN 0.75. Your phone is asked for NGN 50.75.' }).waitFor();
      // What the wallet's verification tier still lets in (docs/wallet-tiers.md): the holder's own GET /api/wallet/tier says the same.
      const tier = await s.request<{ remaining: { in: number } }>('GET', `/api/admin/wallets/${handle}/tier`, { headers: ADMIN });
      const room = new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN', currencyDisplay: 'code' }).format(tier.body.remaining.in).replace(/\s/g, ' ');
      await page.locator('#topup-quote', { hasText: 'Your wallet can still receive' }).waitFor();
      assert.equal((await page.locator('#topup-quote').innerText()).replace(/\s/g, ' '), `Fee NGN 0.75. Your phone is asked for NGN 50.75. Your wallet can still receive ${room} (verification tier 1).`);
      await page.screenshot({ path: `${ARTIFACTS}wallet-topup-quote-390x844-${target.name}.png`, fullPage: true });
      await page.setViewportSize(DESKTOP.viewport);
      await page.screenshot({ path: `${ARTIFACTS}wallet-topup-quote-1024x768-${target.name}.png`, fullPage: true });
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false, 'nothing runs off the side at 1024x768');
      await page.setViewportSize(PHONE.viewport);
      await page.click('#topup-button');
      await page.locator('#topup-progress[data-status="pending"]').waitFor();
      assert.match(await page.locator('#topup-status').innerText(), /Approve the payment of NGN\s*50\.75 on your phone \(\+234•+567\)/);
      assert.match(await page.locator('#topup-countdown').innerText(), /\d+ s left/);
      await page.screenshot({ path: `${ARTIFACTS}wallet-topup-pending-${target.name}.png`, fullPage: true });
      assert.equal(await finalStatus(page, '#topup-progress', async () => undefined, ['pending']), 'completed');
      assert.match(await page.locator('#topup-status').innerText(), /^NGN\s50\.00 added to your wallet\.$/);
      await page.locator('#balance', { hasText: '150.00' }).waitFor();
      assert.equal(await balanceMinor(s, handle, 'NGN'), 15_000);

      // A declined top-up (the sandbox's number ending 0002) adds nothing and says why.
      await page.fill('#topup-amount', '20');
      await page.fill('#topup-phone', '08031230002');
      await page.click('#topup-button');
      assert.equal(await finalStatus(page, '#topup-progress', async () => undefined, ['pending']), 'failed');
      assert.equal(await page.locator('#topup-status').innerText(), 'Nothing was added: the payment was declined on the phone.');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 15_000);

      // A withdrawal to a mobile money number: a wrong PIN first (nothing moves), then hers.
      await page.fill('#withdraw-amount', '30');
      await page.fill('#withdraw-phone', '08039876543');
      await page.locator('#withdraw-quote', { hasText: 'Fee NGN 0.30. NGN 30.30 leaves your wallet.' }).waitFor();
      await page.fill('#withdraw-pin', '1111');
      await page.click('#withdraw-button');
      await page.locator('#withdraw-error', { hasText: /PIN/ }).waitFor();
      assert.equal(await page.locator('#withdraw-pin').inputValue(), '', 'a refused PIN is not kept in the field');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 15_000);
      await page.fill('#withdraw-pin', '2468');
      await page.click('#withdraw-button');
      await page.locator('#withdraw-progress').waitFor({ state: 'visible' });
      assert.match(await page.locator('#withdraw-status').innerText(), /NGN\s*30\.00/);
      await page.screenshot({ path: `${ARTIFACTS}wallet-withdraw-${target.name}.png`, fullPage: true });
      assert.equal(await finalStatus(page, '#withdraw-progress', () => s.context.payments.runOnce(), ['pending', 'processing']), 'completed');
      assert.match(await page.locator('#withdraw-status').innerText(), /^NGN\s*30\.00 sent to \+234•+543\.$/);
      await page.locator('#balance', { hasText: '119.70' }).waitFor();
      assert.equal(await balanceMinor(s, handle, 'NGN'), 11_970);

      // One that fails at the provider (the sandbox's number ending 0002): the money comes back.
      await page.fill('#withdraw-amount', '10');
      await page.fill('#withdraw-phone', '08031230002');
      await page.locator('#withdraw-quote', { hasText: 'Fee NGN 0.10. NGN 10.10 leaves your wallet.' }).waitFor();
      await page.fill('#withdraw-pin', '2468');
      await page.click('#withdraw-button');
      assert.equal(await finalStatus(page, '#withdraw-progress', () => s.context.payments.runOnce(), ['pending', 'processing']), 'failed');
      assert.match(await page.locator('#withdraw-status').innerText(), /NGN\s*10\.10 is back in your wallet\.$/);
      await page.locator('#balance', { hasText: '119.70' }).waitFor();
      assert.equal(await balanceMinor(s, handle, 'NGN'), 11_970);

      // The recent list, newest first: every top-up and withdrawal with its outcome.
      await page.locator('#history li[data-kind="withdrawal"][data-status="failed"]').waitFor();
      await page.locator('#history li').nth(3).waitFor();
      const rows = await page.locator('#history li').evaluateAll((items) => items.map((item) => [item.getAttribute('data-kind'), item.getAttribute('data-status'), item.querySelector('.history-amount')?.textContent ?? '']));
      assert.deepEqual(rows.map(([kind, status]) => [kind, status]), [['withdrawal', 'failed'], ['withdrawal', 'completed'], ['top_up', 'failed'], ['top_up', 'completed']]);
      assert.match(rows[1]![2]!, /−NGN\s*30\.30/);
      assert.match(rows[3]![2]!, /\+NGN\s*50\.00/);
      await page.screenshot({ path: `${ARTIFACTS}wallet-history-${target.name}.png`, fullPage: true });

      // A reload stays signed in (the tab's session), and the offline QR page shares it.
      await page.reload();
      await page.locator('#history li').first().waitFor();
      assert.equal(await page.locator('#signin-card').isHidden(), true);
      await page.click('#offline-qr-link');
      await page.locator('#voucher-card').waitFor({ state: 'visible' });
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*119\.70 available/);
      await page.close();

      assert.deepEqual((await checkLedger(s.db)).violations, [], 'the books balance');
    });

    it('shows the holder her own account number for a top-up by bank transfer, its fee first, and credits a transfer into it (kiosk and phone sizes)', async () => {
      const s = server();
      const handle = uniqueHandle('wpbank');
      await s.createWallet({ handle, pin: '2468' });
      const page = await trackedPage(browser, { viewport: { width: 1280, height: 800 } }, pageErrors);
      await page.goto(`${s.baseUrl}/wallet`);
      await page.fill('#handle', `@${handle}`);
      await page.fill('#pin', '2468');
      await page.click('#signin-button');
      await page.locator('#bank-get').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#bank-card h2').innerText(), 'Top up by bank transfer');
      assert.equal(await page.locator('#bank-details').isVisible(), false, 'no account until she asks for one');
      await page.click('#bank-get');
      await page.locator('#bank-details').waitFor({ state: 'visible' });
      const accountNumber = await page.locator('#bank-account-number').innerText();
      assert.match(accountNumber, /^\d{10}$/);
      assert.equal(await page.locator('#bank-name').innerText(), 'Tapline Sandbox Bank');
      assert.equal(await page.locator('#bank-account-name').innerText(), `TAPLINE/${handle.toUpperCase()}`);
      assert.match(await page.locator('#bank-fee').innerText(), /^Fee: 0\.5% of each transfer, kept from it \(NGN\s*1,000\.00 sent adds NGN\s*995\.00\)\.$/);
      assert.equal(await page.locator('#bank-get').isVisible(), false);
      await page.screenshot({ path: `${ARTIFACTS}wallet-bank-1280x800-${target.name}.png`, fullPage: true });

      // A sandbox bank transfer into that account (what a bank does live), then the page read again.
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
      const sent = await s.request<{ amount: number; accountNumber: string }>('POST', '/api/wallet/virtual-account/sandbox-transfer', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { amount: 2000, senderName: 'ADA OBI' } });
      assert.deepEqual([sent.status, sent.body.amount, sent.body.accountNumber], [201, 1990, accountNumber]);
      await page.reload();
      await page.locator('#history li[data-kind="bank_transfer"]').waitFor();
      assert.match(await page.locator('#balance').innerText(), /NGN\s*1,990\.00/);
      assert.match(await page.locator('#history li[data-kind="bank_transfer"]').innerText(), /Bank transfer from ADA OBI[\s\S]*\+NGN\s*1,990\.00/);
      assert.equal(await page.locator('#bank-account-number').innerText(), accountNumber, 'the same account after a reload');
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false, 'nothing runs off the side at 1280x800');
      await page.setViewportSize(PHONE.viewport);
      await page.locator('#bank-card').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}wallet-bank-390x844-${target.name}.png`, fullPage: true });
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false, 'nothing runs off the side at 390x844');
      await page.close();
      assert.equal(await balanceMinor(s, handle, 'NGN'), 199_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('speaks French, offers saved destinations, and fits a kiosk-sized desktop window', async () => {
      const s = server();
      const handle = uniqueHandle('wf');
      await s.createWallet({ handle, pin: '2468', fund: 40 });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
      const saved = await s.request('PUT', '/api/wallet/destinations', {
        headers: { authorization: `Bearer wallet.${session.body.token}` },
        body: { destinations: [{ type: 'mobile_wallet', provider: 'MTN', phone: '+2348031112222', country: 'NG', currency: 'NGN' }] },
      });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      const page = await trackedPage(browser, DESKTOP, pageErrors);
      await page.goto(`${s.baseUrl}/wallet?lang=fr`);
      await page.fill('#handle', `@${handle}`);
      await page.fill('#pin', '2468');
      await page.click('#signin-button');
      await page.locator('#withdraw-card').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#topup-card h2').innerText(), 'Ajouter de l\'argent depuis votre téléphone');
      await page.locator('#withdraw-to option[value="saved:0"]').waitFor({ state: 'attached' });
      const options = await page.locator('#withdraw-to option').allInnerTexts();
      assert.deepEqual(options, ['Un numéro mobile money', 'Un compte bancaire', 'Enregistré : MTN +2348031112222']);
      await page.selectOption('#withdraw-to', 'bank_account');
      assert.equal(await page.locator('#withdraw-bank').isVisible(), true);
      assert.equal(await page.locator('#withdraw-mobile').isVisible(), false);
      await page.fill('#topup-amount', '20');
      await page.locator('#topup-quote', { hasText: 'Votre portefeuille peut encore recevoir' }).waitFor();
      assert.match(await page.locator('#topup-quote').innerText(), /^Frais 0,30\sNGN\. Votre téléphone paiera 20,30\sNGN\. Votre portefeuille peut encore recevoir [\d\s]+,00\sNGN \(niveau de vérification 1\)\.$/);
      await page.setViewportSize(PHONE.viewport);
      await page.screenshot({ path: `${ARTIFACTS}wallet-fr-390x844-${target.name}.png`, fullPage: true });
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false, 'nothing runs off the side at 390x844');
      await page.setViewportSize(DESKTOP.viewport);
      await page.selectOption('#withdraw-to', 'saved:0');
      await page.fill('#withdraw-amount', '15');
      await page.fill('#withdraw-pin', '2468');
      await page.click('#withdraw-button');
      assert.equal(await finalStatus(page, '#withdraw-progress', () => s.context.payments.runOnce(), ['pending', 'processing']), 'completed');
      assert.match(await page.locator('#withdraw-status').innerText(), /15,00\s*NGN envoyé vers \+234•+222\./);
      await page.locator('#history li[data-status="completed"]').waitFor();
      assert.match(await page.locator('#history li').first().innerText(), /Envoyé vers \+234•+222/);
      await page.screenshot({ path: `${ARTIFACTS}wallet-fr-desktop-${target.name}.png`, fullPage: true });
      const overflow = await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');
      assert.equal(overflow, false, 'nothing runs off the side');
      // The kiosk's smallest screen too (the page may be opened on the till's browser).
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: `${ARTIFACTS}wallet-fr-800x600-${target.name}.png`, fullPage: true });
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false, 'nothing runs off the side at 800x600');
      await page.close();
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });

  describe(`a live wallet's account number through Flutterwave asks for her BVN first, on ${target.name}`, async () => {
    const port = await freePort();
    const env: Record<string, string> = {};
    let fake: FlutterwaveFake;
    let browser: Browser;
    const pageErrors: string[] = [];
    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      fake = await startFlutterwaveFake({ callbackBase: `http://127.0.0.1:${port}/api/rails/flutterwave/webhook`, delayScale: 0.05 });
      Object.assign(env, fake.env);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await fake?.stop();
      assert.deepEqual(pageErrors, [], 'no error in the page');
    });
    const server = useTestServer(target, { port, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RAIL_TIMEOUT_MS: '2000' }, app: { providerEnv: env } });

    /** A live NGN wallet in Nigeria (her only wallet, so the page signs in to it), signed in on the page. */
    const signedIn = async (lang: string, size: { width: number; height: number }) => {
      const s = server();
      const handle = uniqueHandle('wpbvn');
      await s.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const page = await trackedPage(browser, { viewport: size }, pageErrors);
      await page.goto(`${s.baseUrl}/wallet?lang=${lang}`);
      await page.fill('#handle', `@${handle}`);
      await page.fill('#pin', '2468');
      await page.click('#signin-button');
      await page.locator('#bank-get').waitFor({ state: 'visible' });
      return { page, handle };
    };

    it('asks for the BVN only when the bank needs it, refuses one that is not 11 digits before sending, and opens the account with it (800x600)', async () => {
      const before = fake.virtualAccounts().length;
      const { page, handle } = await signedIn('en', { width: 800, height: 600 });
      assert.equal(await page.locator('#bank-bvn').isVisible(), false, 'no BVN asked before the bank says it needs one');
      await page.click('#bank-get');
      await page.locator('#bank-bvn').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#bank-error').innerText(), 'To open your account number the bank needs your BVN. Enter it and press the button again.');
      assert.equal(await page.locator('label[for="bank-bvn-input"]').innerText(), 'Your BVN (Bank Verification Number)');
      assert.equal(await page.locator('#bank-bvn-hint').innerText(), 'The bank opens an account in your name only with your 11-digit BVN. We pass it to the bank and never keep it.');
      assert.equal(await page.evaluate<string>('document.activeElement?.id ?? ""'), 'bank-bvn-input', 'the field has the focus');
      await page.locator('#bank-card').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}wallet-bvn-800x600-${target.name}.png`, fullPage: true });
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false, 'nothing runs off the side at 800x600');

      for (const typed of ['1234', '1234567890a', '123456789012']) {
        await page.fill('#bank-bvn-input', typed);
        await page.click('#bank-get');
        assert.equal(await page.locator('#bank-error').innerText(), 'Enter your BVN: 11 digits.', typed);
      }
      assert.equal(fake.virtualAccounts().length, before, 'nothing was sent to the bank for a malformed BVN');

      // Spaces as people group it on their card are fine; the bank receives the 11 digits.
      await page.fill('#bank-bvn-input', '223 4567 8901');
      await page.click('#bank-get');
      await page.locator('#bank-details').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#bank-name').innerText(), 'WEMA BANK');
      assert.match(await page.locator('#bank-account-number').innerText(), /^\d{10}$/);
      assert.equal(await page.locator('#bank-bvn').isVisible(), false);
      assert.equal(await page.locator('#bank-bvn-input').inputValue(), '', 'the BVN is not left on the page');
      assert.equal(await page.locator('#bank-error').innerText(), '');
      const made = fake.virtualAccounts();
      assert.equal(made.length, before + 1);
      assert.equal(made.at(-1)!.bvn, '22345678901');
      const stored = await server().db.query<{ n: number | string }>("SELECT count(*) AS n FROM wallet_virtual_accounts va JOIN wallets w ON w.id = va.wallet_id WHERE w.handle = $1", [handle]);
      assert.equal(Number(stored[0]!.n), 1);
      await page.screenshot({ path: `${ARTIFACTS}wallet-bvn-opened-800x600-${target.name}.png`, fullPage: true });
      await page.close();
    });

    it('asks in French at 1024x768', async () => {
      const { page } = await signedIn('fr', { width: 1024, height: 768 });
      await page.click('#bank-get');
      await page.locator('#bank-bvn').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#bank-error').innerText(), 'Pour ouvrir votre numéro de compte, la banque a besoin de votre BVN. Saisissez-le et appuyez de nouveau sur le bouton.');
      assert.equal(await page.locator('label[for="bank-bvn-input"]').innerText(), 'Votre BVN (numéro de vérification bancaire)');
      await page.fill('#bank-bvn-input', '12');
      await page.click('#bank-get');
      assert.equal(await page.locator('#bank-error').innerText(), 'Saisissez votre BVN : 11 chiffres.');
      await page.locator('#bank-card').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}wallet-bvn-fr-1024x768-${target.name}.png`, fullPage: true });
      assert.equal(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), false);
      await page.close();
    });
  });
}
