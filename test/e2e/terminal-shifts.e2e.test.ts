// Till staff and cashier shifts at the kiosk in Chromium against the real sync server on each
// database (docs/till.md): staff made through the merchant API arrive in the kiosk's replica with
// their PIN verifiers; a cashier signs in with their PIN (checked in the page, a wrong one counted),
// counts the float, records a paid in and a paid out, a no sale approved by a manager's PIN, and
// closes with a blind count that differs from what the till expected; the server's shift
// (GET /api/merchant/shifts) has the same float, paid in / out, expected, counted and variance, and
// the printer received the shift report and one drawer kick (ESC p) per opening. Then the same
// offline: sign-in, float, paid out and close while the server cannot be reached, in French, and
// everything settles once when the connection is back. The printer is a network printer on
// 127.0.0.1 behind the kiosk's durable print queue, so its bytes are what a real one would get.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DurablePrintQueue, QueuedReceiptPrinter, SimulatedNfcReader, TcpTransport, encodeDrawerPulse } from '@tapline/hardware';
import { FakeNetworkPrinter } from '@tapline/hardware/testing';
import { type TestServer, databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { type TerminalHost, startTerminalHost } from '@tapline/terminal/host';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, assertControlsOnScreen, builtRenderer } from './kiosk.ts';
import { type Relay, startRelay } from './relay.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const SIZES = [
  { width: 800, height: 600 },
  { width: 1024, height: 768 },
] as const;
const KICK = Buffer.from(encodeDrawerPulse(2));

interface Staff {
  id: string;
  name: string;
  role: 'cashier' | 'manager';
}

interface ShiftRecord {
  id: string;
  terminalId: string;
  cashierId: string;
  cashierName: string | null;
  status: 'open' | 'closed';
  currency: string;
  float: number;
  paidIn: number;
  paidOut: number;
  noSales: number;
  cashSales: number;
  cashRefunds: number;
  expected: number | null;
  counted: number | null;
  variance: number | null;
}

interface ShiftDetail extends ShiftRecord {
  events: { kind: string; amount: number; reason: string | null; approvedBy: string | null; approvedByName: string | null; cashierId: string; status: string; declineCode: string | null }[];
}

/** The kiosk's page as the cashier sees it: every word of it, as one string. */
const screenText = (page: Page) => page.locator('main').innerText();

for (const target of await databaseTargets()) {
  describe(`cashier shifts at the kiosk in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let relay: Relay;
    let host: TerminalHost;
    let printer: FakeNetworkPrinter;
    let receiptPrinter: QueuedReceiptPrinter;
    let queueDir: string;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      relay = await startRelay(server().baseUrl);
      printer = new FakeNetworkPrinter();
      await printer.listen();
      queueDir = mkdtempSync(join(tmpdir(), 'tapline-shifts-queue-'));
      receiptPrinter = new QueuedReceiptPrinter({ transport: new TcpTransport({ host: '127.0.0.1', port: printer.port }), queue: new DurablePrintQueue({ directory: queueDir }), statusIntervalMs: 0, escpos: { drawerPin: 2 } });
      host = await startTerminalHost({
        syncServerUrl: relay.url,
        port: 0,
        staticDir: rendererDir,
        nfc: new SimulatedNfcReader({ baseUrl: server().baseUrl, debounceWindowMs: 0 }),
        printer: receiptPrinter,
        receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos' },
        log: () => undefined,
      });
    });
    afterEach(() => relay.restore());
    after(async () => {
      await browser?.close();
      await host?.close();
      await relay?.close();
      await printer?.goOffline();
      rmSync(queueDir, { recursive: true, force: true });
      assert.deepEqual(pageErrors.filter((error) => !error.includes('WebSocket is already in CLOSING or CLOSED state')), [], 'no script error on the page');
    });

    async function addStaff(s: TestServer, key: Record<string, string>, name: string, role: Staff['role'], pin: string): Promise<Staff> {
      const made = await s.request<Staff>('POST', '/api/merchant/staff', { headers: key, body: { name, role, pin } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body;
    }

    /** Pairs the page with the terminal token; with till staff it opens on "Who is selling?". */
    async function signInTill(page: Page, terminalToken: string, names: string[]): Promise<void> {
      await page.goto(host.url);
      await page.click('#show-advanced');
      await page.fill('#token', `term.${terminalToken}`);
      await page.click('#signin-button');
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      await waitForExpression(page, "localStorage.getItem('tapline.syncHello') !== null", SYNC_WAIT.timeout);
      await page.locator('#till-sign-in').waitFor(SYNC_WAIT);
      for (const name of names) await page.locator('#till-sign-in button.name', { hasText: name }).waitFor(SYNC_WAIT);
    }

    async function typePin(page: Page, pin: string): Promise<void> {
      for (const digit of pin) await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
    }

    /** The screen at both kiosk sizes: every control on screen and a touch target at 800x600, a screenshot at each. */
    async function shots(page: Page, root: string, name: string): Promise<void> {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        if (size.width === 800) await assertControlsOnScreen(page, root, `${name} ${size.width}x${size.height}`);
        await page.screenshot({ path: `${ARTIFACTS}terminal-shifts-${name}-${size.width}x${size.height}-${target.name}.png` });
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    /** Types an amount on a CashAmount screen with the keyboard, as a cashier with a keyboard would. */
    async function typeAmount(page: Page, id: string, amount: string): Promise<void> {
      await page.click(`#${id}-clear`);
      await page.keyboard.type(amount);
      assert.equal((await page.locator(`#${id}-amount`).innerText()).replace(/\s/g, ''), amount.replace('.', (await page.evaluate<string>('document.documentElement.lang')) === 'fr' ? ',' : '.'));
    }

    function kicks(): number {
      return printer.timesReceived(KICK);
    }

    async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = SYNC_WAIT.timeout): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    /** Everything the printer received, as text (the report is ASCII in English, code page 858 in French). */
    const printed = () => Buffer.concat(printer.connections).toString('latin1');

    async function shiftsOf(s: TestServer, key: Record<string, string>, terminalId: string): Promise<ShiftRecord[]> {
      const answer = await s.request<{ data: ShiftRecord[] }>('GET', `/api/merchant/shifts?terminalId=${terminalId}`, { headers: key });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.data;
    }

    it('signs a cashier in with their PIN, opens the shift with a float, records paid in, paid out and a manager\'s no sale, and closes with a blind count the server records with its variance', async () => {
      const { s, key, terminalId, terminalToken } = await shopWithTerminal(server(), { fund: 10 });
      const ada = await addStaff(s, key, 'Ada Obi', 'cashier', '1357');
      const musa = await addStaff(s, key, 'Musa Bello', 'manager', '2468');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInTill(page, terminalToken, ['Ada Obi', 'Musa Bello']);
      assert.equal(await page.locator('#status-cashier').getAttribute('data-state'), 'signed-out');
      assert.equal(await page.locator('#sale').count(), 0, 'nobody sells before signing in');
      await shots(page, '#till-sign-in', 'sign-in-en');

      // A wrong PIN is counted and said; the right one opens the float count.
      await page.click(`#till-sign-in button[data-staff-id="${ada.id}"]`);
      await typePin(page, '1111');
      await page.locator('#till-sign-in-message').waitFor();
      assert.equal(await page.locator('#till-sign-in-message').innerText(), 'Wrong PIN. 4 more tries, then sign-in is locked on this till for 15 minutes.');
      await typePin(page, '1357');
      await page.locator('#float').waitFor();
      assert.equal(await page.locator('#float h1').innerText(), 'Ada Obi: count the float');
      await typeAmount(page, 'float', '100');
      assert.equal(await page.locator('#float-confirm').innerText(), 'Start my shift with NGN\u00a0100.00');
      await shots(page, '#float', 'float-en');
      const kicksBefore = kicks();
      await page.click('#float-confirm');
      await page.locator('#sale').waitFor();
      assert.equal(await page.locator('#status-cashier').innerText(), 'Cashier Ada Obi');
      await until('the float\'s drawer kick', () => kicks() === kicksBefore + 1);

      // Paid in and paid out: amount and reason, each opening the drawer.
      await page.click('#shift-button');
      await page.locator('#shift').waitFor();
      assert.equal(await page.locator('#shift h1').innerText(), 'Shift of Ada Obi');
      await page.click('#shift-paid-in');
      await typeAmount(page, 'paid-in', '20');
      await page.click('#paid-in-confirm');
      assert.equal(await page.locator('#paid-in-refusal').innerText(), 'Type the reason: it is required.');
      await page.fill('#paid-in-reason', 'Change from the bank');
      await page.click('#paid-in-confirm');
      await page.locator('#shift-notice').waitFor();
      assert.equal(await page.locator('#shift-notice').innerText(), 'Paid in NGN\u00a020.00 recorded (Change from the bank).');
      await page.click('#shift-paid-out');
      await typeAmount(page, 'paid-out', '5');
      await page.fill('#paid-out-reason', 'Fuel for the generator');
      await shots(page, '#paid-out', 'paid-out-en');
      await page.click('#paid-out-confirm');
      await page.locator('#shift-notice', { hasText: 'Paid out NGN\u00a05.00 recorded (Fuel for the generator).' }).waitFor();
      await until('the paid in and paid out kicks', () => kicks() === kicksBefore + 3);

      // No sale: only managers are offered, and the manager's PIN approves it.
      await page.click('#shift-no-sale');
      await page.locator('#no-sale-manager').waitFor();
      assert.deepEqual(await page.locator('#no-sale-manager button.name').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-staff-id'))), [musa.id]);
      await page.click(`#no-sale-manager button[data-staff-id="${musa.id}"]`);
      await typePin(page, '2468');
      await page.locator('#no-sale[data-step="reason"]').waitFor();
      assert.equal(await page.locator('#no-sale-approved').innerText(), 'Approved by Musa Bello');
      await page.fill('#no-sale-reason', 'Change for a customer');
      await page.click('#no-sale-confirm');
      await page.locator('#shift-notice', { hasText: 'Drawer opened without a sale, approved by Musa Bello.' }).waitFor();
      await until('the no sale\'s kick', () => kicks() === kicksBefore + 4);

      // The blind count: nothing of what the till expects is on screen before the count is confirmed.
      await page.click('#shift-close');
      await page.locator('#close-count').waitFor();
      const counting = await screenText(page);
      assert.doesNotMatch(counting, /115|Expected|Variance/);
      await typeAmount(page, 'close-count', '114.50');
      await shots(page, '#close-count', 'close-count-en');
      await page.click('#close-count-confirm');
      await page.locator('#shift-closed').waitFor();
      assert.equal(await page.locator('#shift-expected').innerText(), 'NGN\u00a0115.00');
      assert.equal(await page.locator('#shift-counted').innerText(), 'NGN\u00a0114.50');
      assert.equal(await page.locator('#shift-variance').innerText(), 'Short NGN\u00a00.50');
      assert.equal(await page.locator('#shift-closed').getAttribute('data-variance'), '-50');
      assert.equal(await page.evaluate<string>("getComputedStyle(document.querySelector('.variance.short dd')).color"), 'rgb(140, 29, 24)', 'short is red');
      await page.locator('#shift-report-status', { hasText: 'Shift report: Printed' }).waitFor();
      await shots(page, '#shift-closed', 'variance-en');
      const shiftId = (await page.locator('#shift-closed').getAttribute('data-shift-id'))!;
      // The report reached the printer, and no more kicks than the four openings.
      await until('the shift report on paper', () => printed().includes(`Shift ${shiftId}`));
      const paper = printed();
      for (const line of ['SHIFT REPORT', 'Ada Obi', 'Float', '100.00', '20.00', '-5.00', 'Expected', '115.00', 'Counted', '114.50', 'VARIANCE', '-NGN 0.50', 'SHORT']) assert.ok(paper.includes(line), `the report prints ${line}`);
      assert.equal(kicks(), kicksBefore + 4);

      // Done signs the cashier out: the till asks who is selling again.
      await page.click('#shift-closed-done');
      await page.locator('#till-sign-in').waitFor();
      assert.equal(await page.locator('#status-cashier').getAttribute('data-state'), 'signed-out');

      // The server has the shift as the till counted it.
      await until('the closed shift on the server', async () => (await shiftsOf(s, key, terminalId))[0]?.status === 'closed');
      const [shift] = await shiftsOf(s, key, terminalId);
      assert.ok(shift);
      assert.deepEqual(
        { id: shift.id, cashierId: shift.cashierId, cashierName: shift.cashierName, currency: shift.currency, float: shift.float, paidIn: shift.paidIn, paidOut: shift.paidOut, noSales: shift.noSales, cashSales: shift.cashSales, cashRefunds: shift.cashRefunds, expected: shift.expected, counted: shift.counted, variance: shift.variance },
        { id: shiftId, cashierId: ada.id, cashierName: 'Ada Obi', currency: 'NGN', float: 100, paidIn: 20, paidOut: 5, noSales: 1, cashSales: 0, cashRefunds: 0, expected: 115, counted: 114.5, variance: -0.5 },
      );
      const detail = await s.request<ShiftDetail>('GET', `/api/merchant/shifts/${shiftId}`, { headers: key });
      assert.equal(detail.status, 200);
      assert.deepEqual(
        detail.body.events.map((event) => [event.kind, event.amount, event.reason, event.approvedByName, event.cashierId, event.status]),
        [
          ['open', 100, null, null, ada.id, 'accepted'],
          ['paid_in', 20, 'Change from the bank', null, ada.id, 'accepted'],
          ['paid_out', 5, 'Fuel for the generator', null, ada.id, 'accepted'],
          ['no_sale', 0, 'Change for a customer', 'Musa Bello', ada.id, 'accepted'],
          ['close', 114.5, null, null, ada.id, 'accepted'],
        ],
      );
      await page.close();
    });

    it('signs in, opens, pays out and closes a shift while the server cannot be reached (in French), and syncs it once when it is back', async () => {
      const { s, key, terminalId, terminalToken } = await shopWithTerminal(server(), { fund: 10 });
      const bola = await addStaff(s, key, 'Bola Adé', 'cashier', '8642');
      await addStaff(s, key, 'Musa Bello', 'manager', '2468');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInTill(page, terminalToken, ['Bola Adé', 'Musa Bello']);
      await page.selectOption('#language-switcher', 'fr');

      relay.cut();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
      // A reload without the server: the cached hello, and the staff from IndexedDB.
      await page.reload();
      await page.locator('#till-sign-in button.name', { hasText: 'Bola Adé' }).waitFor();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#till-sign-in h1').innerText(), 'Qui est à la caisse ?');
      await shots(page, '#till-sign-in', 'sign-in-fr');

      await page.click(`#till-sign-in button[data-staff-id="${bola.id}"]`);
      await page.locator('#pin-pad').waitFor();
      await shots(page, '#till-sign-in', 'pin-fr');
      await typePin(page, '8642');
      await page.locator('#float').waitFor();
      await typeAmount(page, 'float', '50');
      await shots(page, '#float', 'float-fr');
      const kicksBefore = kicks();
      await page.click('#float-confirm');
      await page.locator('#sale').waitFor();
      assert.equal(await page.locator('#status-cashier').innerText(), 'Caissier Bola Adé');

      await page.click('#shift-button');
      await page.click('#shift-paid-out');
      await typeAmount(page, 'paid-out', '7.25');
      await page.fill('#paid-out-reason', 'Carburant du groupe électrogène');
      await shots(page, '#paid-out', 'paid-out-fr');
      await page.click('#paid-out-confirm');
      await page.locator('#shift-notice').waitFor();
      await page.click('#shift-close');
      await typeAmount(page, 'close-count', '43');
      assert.doesNotMatch(await screenText(page), /42,75|Attendu|Écart/);
      await shots(page, '#close-count', 'close-count-fr');
      await page.click('#close-count-confirm');
      await page.locator('#shift-closed').waitFor();
      assert.equal(await page.locator('#shift-expected').innerText(), '42,75\u00a0NGN');
      assert.equal(await page.locator('#shift-counted').innerText(), '43,00\u00a0NGN');
      assert.equal(await page.locator('#shift-variance').innerText(), 'Excédent 0,25\u00a0NGN');
      assert.equal(await page.locator('#shift-closed').getAttribute('data-variance-kind'), 'over');
      await page.locator('#shift-report-status', { hasText: 'Rapport de service' }).waitFor();
      await shots(page, '#shift-closed', 'variance-fr');
      const shiftId = (await page.locator('#shift-closed').getAttribute('data-shift-id'))!;
      await until('the float and paid out kicks', () => kicks() === kicksBefore + 2);
      await until('the French shift report on paper', () => printed().includes(`Service ${shiftId}`));
      assert.ok(printed().includes('RAPPORT DE SERVICE'));
      // Three events wait on the till: the server has nothing yet.
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '3');
      assert.deepEqual(await shiftsOf(s, key, terminalId), []);
      await page.click('#shift-closed-done');
      await page.locator('#till-sign-in').waitFor();

      relay.restore();
      await page.locator('#status-queued[data-count="0"]').waitFor(SYNC_WAIT);
      const shifts = await shiftsOf(s, key, terminalId);
      assert.equal(shifts.length, 1);
      const [shift] = shifts;
      assert.deepEqual(
        { id: shift!.id, status: shift!.status, cashierId: shift!.cashierId, float: shift!.float, paidIn: shift!.paidIn, paidOut: shift!.paidOut, noSales: shift!.noSales, expected: shift!.expected, counted: shift!.counted, variance: shift!.variance },
        { id: shiftId, status: 'closed', cashierId: bola.id, float: 50, paidIn: 0, paidOut: 7.25, noSales: 0, expected: 42.75, counted: 43, variance: 0.25 },
      );
      const detail = await s.request<ShiftDetail>('GET', `/api/merchant/shifts/${shiftId}`, { headers: key });
      assert.deepEqual(detail.body.events.map((event) => [event.kind, event.amount, event.status]), [['open', 50, 'accepted'], ['paid_out', 7.25, 'accepted'], ['close', 43, 'accepted']]);
      // The till's replica holds the server's verdicts: nothing is sent twice.
      await waitForExpression(page, "document.querySelector('#status-sync')?.getAttribute('data-state') === 'online'", SYNC_WAIT.timeout);
      assert.equal((await s.request<ShiftDetail>('GET', `/api/merchant/shifts/${shiftId}`, { headers: key })).body.events.length, 3);
      await page.close();
    });
  });
}
