// The dashboard's till pages in Chromium against a real server on each database: till staff
// added (a cashier and a manager; their PINs never in the page nor in the API's answer), edited,
// given a new PIN (checked against the verifier the kiosks pull), removed after a question; a
// viewer who reads but cannot change; cashier shifts pushed by two tills over the sync socket
// (a float, cash paid in and out, a drawer opened with a manager's approval, a blind count short,
// over and balanced) listed with their variance, filtered by till, cashier and status, a shift's
// events, the per-cashier summary. axe-core on each page; screenshots at 1280x800 and 800x600 in
// English and French under test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomUUID, timingSafeEqual } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { type Socket, io } from 'socket.io-client';
import { SYNC_EVENTS, SYNC_NAMESPACE } from '@tapline/shared/sync-protocol';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { DASHBOARD_DIR, LAPTOP, dashboardOwner, dashboardUser, openPage, prepareDashboard, shoot as shootDashboard, signIn } from './dashboard.ts';

await prepareDashboard();

interface StaffRecord {
  id: string;
  name: string;
  role: string;
  active: boolean;
  updatedAt: string;
  removedAt: string | null;
}
interface ShiftRecord {
  id: string;
  terminalName: string;
  cashierName: string | null;
  status: string;
  expected: number | null;
  counted: number | null;
  variance: number | null;
}

/** Text as read, Intl's non-breaking spaces as plain ones. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ').replace(/\s+/g, ' ').trim();
const text = async (locator: Locator) => plain(await locator.innerText());

/** Whether `pin` matches a till staff member's verifier (pbkdf2-sha256$iterations$salt$hash, base64), as a kiosk checks it offline. */
function pinMatches(pin: string, verifier: string): boolean {
  const [scheme, rounds, salt, hash] = verifier.split('$');
  assert.equal(scheme, 'pbkdf2-sha256');
  const expected = Buffer.from(hash!, 'base64');
  return timingSafeEqual(pbkdf2Sync(pin, Buffer.from(salt!, 'base64'), Number(rounds), expected.length, 'sha256'), expected);
}

for (const target of await databaseTargets()) {
  describe(`dashboard till staff and shifts in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10, env: { DASHBOARD_DIR } });
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    const sockets: Socket[] = [];
    let merchant: { id: string; testKey: string };
    let key: Record<string, string>;
    const tills: Record<'front' | 'back', { id: string; token: string }> = { front: { id: '', token: '' }, back: { id: '', token: '' } };
    const PINS = { ada: '482915', bola: '660377', adaNew: '135790' };
    const staffIds: Record<'ada' | 'bola', string> = { ada: '', bola: '' };

    before(async () => {
      browser = await launchChromium();
      const s = server();
      merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      key = { 'x-merchant-api-key': merchant.testKey };
      const email = await dashboardOwner(s, merchant);
      for (const [which, name] of [['front', 'Front till'], ['back', 'Back till']] as const) {
        const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        tills[which] = created.body;
      }
      page = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      await signIn(page, s.baseUrl, email);
    });
    after(async () => {
      for (const socket of sockets) socket.disconnect();
      await browser?.close();
    });

    const shoot = (name: string) => shootDashboard(page, target.name, name, ['1280x800', '800x600']);
    const staffList = async (includeRemoved = false) =>
      (await server().request<{ data: StaffRecord[] }>('GET', `/api/merchant/staff?limit=100&includeRemoved=${includeRemoved}`, { headers: key })).body.data;
    const staffRow = (name: string) => page.locator('table[data-list=staff] tr[data-row]').filter({ has: page.locator('td[data-name]', { hasText: new RegExp(`^${name}$`) }) });

    async function terminalSocket(token: string): Promise<Socket> {
      const socket = io(`${server().baseUrl}${SYNC_NAMESPACE}`, { auth: { token: `term.${token}` }, transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once(SYNC_EVENTS.hello, () => resolve());
        socket.once('connect_error', reject);
      });
      return socket;
    }

    /** The till staff as a kiosk's replica pulls them (collection till_staff), with their PIN verifiers. */
    async function pulledStaff(): Promise<Map<string, { pinVerifier: string; _deleted: boolean }>> {
      const socket = await terminalSocket(tills.front.token);
      const answer = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection: 'till_staff', checkpoint: null, batchSize: 100 }) as { documents: { id: string; pinVerifier: string; _deleted: boolean }[] };
      socket.disconnect();
      return new Map(answer.documents.map((doc) => [doc.id, doc]));
    }

    async function addStaff(name: string, role: 'cashier' | 'manager', pin: string, again = pin): Promise<void> {
      await page.locator('input[name=staff-name]').fill(name);
      await page.locator('select[name=staff-role]').selectOption(role);
      await page.locator('input[name=staff-pin]').fill(pin);
      await page.locator('input[name=staff-pin-again]').fill(again);
      await page.getByRole('button', { name: 'Add a staff member' }).click();
    }

    it('adds a cashier and a manager: their PINs are never shown, answered or kept in the page', async () => {
      await openPage(page, 'staff');
      await page.getByRole('heading', { name: 'Till staff', level: 1 }).waitFor();
      await page.locator('table[data-list=staff]').getByText('No till staff yet.').waitFor();

      // Two different PINs: nothing is sent.
      await addStaff('Bola Ade', 'manager', '1111', '2222');
      assert.equal(await text(page.getByRole('alert')), 'The two PINs are not the same.');
      assert.deepEqual(await staffList(), []);

      const answers: string[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/api/merchant/staff')) void response.text().then((body) => answers.push(body), () => undefined);
      });
      const added = page.waitForResponse((response) => response.url().endsWith('/api/merchant/staff') && response.request().method() === 'POST');
      await addStaff('Ada Obi', 'cashier', PINS.ada);
      const answer = await added;
      assert.equal(answer.status(), 201);
      const body = await answer.text();
      assert.ok(!body.includes(PINS.ada) && !/pin/i.test(body), `the API answers no PIN nor verifier: ${body}`);
      assert.equal(await text(page.locator('[data-notice]')), 'Ada Obi is added: they sign in at the till with their PIN.');
      await staffRow('Ada Obi').waitFor();
      await page.locator('[data-notice]').filter({ hasText: 'Ada Obi' }).waitFor();

      await page.locator('input[name=staff-pin]').fill(PINS.bola);
      await page.locator('input[name=staff-pin-again]').fill(PINS.bola);
      await page.locator('input[name=staff-name]').fill('Bola Ade');
      await page.locator('select[name=staff-role]').selectOption('manager');
      await page.getByRole('button', { name: 'Add a staff member' }).click();
      await staffRow('Bola Ade').waitFor();

      // The fields are emptied, and no PIN is anywhere in the page (its text, its markup, its fields).
      for (const field of ['staff-name', 'staff-pin', 'staff-pin-again']) assert.equal(await page.locator(`input[name=${field}]`).inputValue(), '', field);
      const html = await page.evaluate<string>('document.documentElement.outerHTML + document.body.innerText + [...document.querySelectorAll("input")].map((input) => input.value).join(" ")');
      for (const pin of [PINS.ada, PINS.bola]) assert.ok(!html.includes(pin), `PIN ${pin} is in the page`);
      for (const body of answers) for (const pin of [PINS.ada, PINS.bola]) assert.ok(!body.includes(pin), `an answer holds a PIN: ${body}`);
      assert.ok(answers.length >= 2, 'the list was read after each addition');

      const listed = await staffList();
      assert.deepEqual(listed.map((member) => [member.name, member.role, member.active, member.removedAt]), [['Ada Obi', 'cashier', true, null], ['Bola Ade', 'manager', true, null]]);
      staffIds.ada = listed[0]!.id;
      staffIds.bola = listed[1]!.id;
      assert.deepEqual(await page.locator('table[data-list=staff] tr[data-row]').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].slice(0, 3).map((cell) => cell.textContent!.trim()))), [
        ['Ada Obi', 'Cashier', 'Active'],
        ['Bola Ade', 'Manager', 'Active'],
      ]);
      // What a kiosk pulls checks the PIN that was typed.
      const pulled = await pulledStaff();
      assert.ok(pinMatches(PINS.ada, pulled.get(staffIds.ada)!.pinVerifier));
      assert.ok(pinMatches(PINS.bola, pulled.get(staffIds.bola)!.pinVerifier));

      await assertAccessible(page, 'till staff');
      await shoot('staff');
    });

    it('edits a member, gives one a new PIN, deactivates and removes another after a question', async () => {
      const s = server();
      const temp = await s.request<StaffRecord>('POST', '/api/merchant/staff', { headers: key, body: { name: 'Chidi Temp', role: 'cashier', pin: '5555' } });
      assert.equal(temp.status, 201);
      await openPage(page, 'overview');
      await openPage(page, 'staff');

      // Ada renamed.
      await staffRow('Ada Obi').getByRole('button', { name: 'Edit Ada Obi' }).click();
      const edit = page.locator(`[data-staff-edit="${staffIds.ada}"]`);
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.getAttribute("name")'), 'edit-staff-name', 'the form takes the focus');
      await edit.locator('input[name=edit-staff-name]').fill('  Ada Obi-Eze ');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.getByText('Saved.').waitFor();
      await edit.getByRole('heading', { name: 'Edit Ada Obi-Eze' }).waitFor();
      await staffRow('Ada Obi-Eze').waitFor();
      await edit.getByRole('button', { name: 'Close' }).click();

      // Chidi made a manager and kept from signing in.
      await staffRow('Chidi Temp').getByRole('button', { name: 'Edit Chidi Temp' }).click();
      const chidi = page.locator(`[data-staff-edit="${temp.body.id}"]`);
      await chidi.locator('select[name=edit-staff-role]').selectOption('manager');
      await chidi.locator('input[name=edit-staff-active]').uncheck();
      await chidi.getByRole('button', { name: 'Save' }).click();
      await chidi.getByText('Saved.').waitFor();
      await staffRow('Chidi Temp').locator('td[data-state="inactive"]').waitFor();
      assert.deepEqual((await staffList()).map((member) => [member.name, member.role, member.active]), [['Ada Obi-Eze', 'cashier', true], ['Bola Ade', 'manager', true], ['Chidi Temp', 'manager', false]]);
      assert.equal(await text(staffRow('Chidi Temp').locator('td[data-state]')), 'Inactive');
      await shoot('staff-edit');

      // A new PIN for Ada: typed twice; the old one no longer opens the till.
      await staffRow('Ada Obi-Eze').getByRole('button', { name: 'Reset the PIN of Ada Obi-Eze' }).click();
      const reset = page.locator(`[data-staff-pin="${staffIds.ada}"]`);
      await reset.getByRole('heading', { name: 'New PIN for Ada Obi-Eze' }).waitFor();
      await reset.locator('input[name=reset-pin]').fill(PINS.adaNew);
      await reset.locator('input[name=reset-pin-again]').fill('135791');
      await reset.getByRole('button', { name: 'Set the PIN' }).click();
      assert.equal(await text(page.getByRole('alert')), 'The two PINs are not the same.');
      await reset.locator('input[name=reset-pin-again]').fill(PINS.adaNew);
      await reset.getByRole('button', { name: 'Set the PIN' }).click();
      await page.locator('[data-notice]').filter({ hasText: 'The PIN of Ada Obi-Eze is changed.' }).waitFor();
      assert.equal(await reset.count(), 0, 'the panel closes');
      const verifier = (await pulledStaff()).get(staffIds.ada)!.pinVerifier;
      assert.deepEqual([pinMatches(PINS.adaNew, verifier), pinMatches(PINS.ada, verifier)], [true, false]);
      assert.ok(!(await page.content()).includes(PINS.adaNew));

      // Chidi removed, after a question that changes nothing until it is answered.
      await staffRow('Chidi Temp').getByRole('button', { name: 'Remove Chidi Temp' }).click();
      const question = page.getByRole('alertdialog');
      assert.equal(await text(question.locator('p')), 'Remove Chidi Temp? They can no longer sign in at any till. Their past shifts keep their name.');
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.textContent'), 'Yes, remove');
      await assertAccessible(page, 'till staff, removal question');
      await shoot('staff-remove');
      assert.equal((await staffList()).length, 3, 'nothing removed before the answer');
      await question.getByRole('button', { name: 'Yes, remove' }).click();
      await page.locator('[data-notice]').filter({ hasText: 'Chidi Temp is removed.' }).waitFor();
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=staff] tr[data-row]").length === 2');
      assert.deepEqual((await staffList()).map((member) => member.name), ['Ada Obi-Eze', 'Bola Ade']);
      const removed = (await staffList(true)).find((member) => member.id === temp.body.id)!;
      assert.ok(removed.removedAt !== null);
      assert.equal((await pulledStaff()).get(temp.body.id)?._deleted, true, 'the kiosks drop Chidi');

      await page.locator('input[name=staff-show-removed]').check();
      await staffRow('Chidi Temp').locator('td[data-state="removed"]').waitFor();
      assert.equal(await text(staffRow('Chidi Temp').locator('td[data-state]')), 'Removed');
      assert.equal(await staffRow('Chidi Temp').getByRole('button').count(), 0, 'a removed member has no actions');
      await page.locator('input[name=staff-show-removed]').uncheck();
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=staff] tr[data-row]").length === 2');
      assert.deepEqual(pageErrors, []);
    });

    it('lists the shifts pushed by two tills with their variance, filtered by till, cashier and status, a shift\'s events and the summary per cashier', async () => {
      // Ten seconds a step, starting three and a half minutes ago: inside the clock skew the server
      // allows before the tills were made, never in the future.
      const base = Date.now() - 210_000;
      const at = (step: number) => new Date(base + step * 10_000).toISOString();
      const shiftIds = { short: randomUUID(), over: randomUUID(), balanced: randomUUID(), open: randomUUID() };
      const event = (till: 'front' | 'back', shiftId: string, kind: string, cashierId: string, amountMinor: number, step: number, extra: Record<string, unknown> = {}) => ({
        id: randomUUID(), terminalId: tills[till].id, shiftId, kind, cashierId, amountMinor, currency: 'NGN', capturedAt: at(step), status: 'queued', serverSeq: 0, ...extra,
      });
      const pushes = {
        front: [
          // Ada at the front till: 100.00 float, 15.00 out for ice, the drawer opened for change with Bola's approval, 80.00 counted of 85.00.
          event('front', shiftIds.short, 'open', staffIds.ada, 10_000, 0),
          event('front', shiftIds.short, 'paid_out', staffIds.ada, 1_500, 1, { reason: 'Bought ice' }),
          event('front', shiftIds.short, 'no_sale', staffIds.ada, 0, 2, { reason: 'Change for a big note', approvedBy: staffIds.bola }),
          event('front', shiftIds.short, 'close', staffIds.ada, 8_000, 10, { expectedMinor: 8_500 }),
          // Bola after her: 30.00 in, 30.00 out.
          event('front', shiftIds.balanced, 'open', staffIds.bola, 3_000, 15),
          event('front', shiftIds.balanced, 'close', staffIds.bola, 3_000, 18, { expectedMinor: 3_000 }),
          // Ada again, still open.
          event('front', shiftIds.open, 'open', staffIds.ada, 2_000, 20),
        ],
        back: [
          // Bola at the back till: 50.00 float, 10.00 in, 62.50 counted of 60.00.
          event('back', shiftIds.over, 'open', staffIds.bola, 5_000, 3),
          event('back', shiftIds.over, 'paid_in', staffIds.bola, 1_000, 4, { reason: 'Float top-up' }),
          event('back', shiftIds.over, 'close', staffIds.bola, 6_250, 12, { expectedMinor: 6_000 }),
        ],
      };
      for (const till of ['front', 'back'] as const) {
        const socket = await terminalSocket(tills[till].token);
        const answer = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'shift_events', rows: pushes[till].map((doc) => ({ assumedMasterState: null, newDocumentState: doc })) }) as { conflicts: { status: string; declineCode?: string; declineReason?: string }[] };
        assert.deepEqual(answer.conflicts.map((doc) => [doc.status, doc.declineReason ?? '']), pushes[till].map(() => ['accepted', '']), JSON.stringify(answer));
        socket.disconnect();
      }
      const shifts = (await server().request<{ data: ShiftRecord[] }>('GET', '/api/merchant/shifts', { headers: key })).body.data;
      assert.deepEqual(shifts.map((shift) => [shift.id, shift.status, shift.variance]), [[shiftIds.open, 'open', null], [shiftIds.balanced, 'closed', 0], [shiftIds.over, 'closed', 2.5], [shiftIds.short, 'closed', -5]]);

      await openPage(page, 'shifts');
      const rows = page.locator('table[data-list=shifts] tr[data-row]');
      const shown = () => rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-row')));
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=shifts] tr[data-row]").length === 4');
      assert.deepEqual(await shown(), [shiftIds.open, shiftIds.balanced, shiftIds.over, shiftIds.short], 'newest first');

      const cells = async (id: string) => {
        const row = page.locator(`table[data-list=shifts] tr[data-row="${id}"]`);
        const all = (await row.locator('td').allInnerTexts()).map(plain);
        return [all[0], all[1], ...all.slice(4)];
      };
      assert.deepEqual(await cells(shiftIds.short), ['Front till', 'Ada Obi-Eze', 'NGN 100.00', 'NGN 0.00', 'NGN 0.00', 'NGN 15.00', 'NGN 85.00', 'NGN 80.00', 'Short NGN 5.00']);
      assert.deepEqual(await cells(shiftIds.over), ['Back till', 'Bola Ade', 'NGN 50.00', 'NGN 0.00', 'NGN 10.00', 'NGN 0.00', 'NGN 60.00', 'NGN 62.50', 'Over NGN 2.50']);
      assert.deepEqual(await cells(shiftIds.balanced), ['Front till', 'Bola Ade', 'NGN 30.00', 'NGN 0.00', 'NGN 0.00', 'NGN 0.00', 'NGN 30.00', 'NGN 30.00', 'Balanced']);
      assert.deepEqual(await cells(shiftIds.open), ['Front till', 'Ada Obi-Eze', 'NGN 20.00', 'NGN 0.00', 'NGN 0.00', 'NGN 0.00', '', '', 'Not counted yet']);
      assert.equal(await text(page.locator(`tr[data-row="${shiftIds.open}"] td[data-status="open"]`)), 'Still open');
      // The colour says it too: short red, over amber, balanced neither.
      const colours = await page.evaluate<Record<string, string>>('Object.fromEntries([...document.querySelectorAll("table[data-list=shifts] [data-tone]")].map((mark) => [mark.dataset.tone, getComputedStyle(mark).backgroundColor]))');
      assert.deepEqual(colours, { balanced: 'rgb(238, 243, 243)', over: 'rgb(254, 240, 199)', short: 'rgb(254, 228, 226)' });

      // The summary per cashier: Ada's one counted shift was short, Bola's two came out 2.50 over.
      const summary = async () => page.locator('table[data-list=cashier-summary] tbody tr').evaluateAll((found) => found.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').replace(/[\u00a0\u202f]/g, ' ').trim())));
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=cashier-summary] tr[data-summary]").length === 2');
      assert.deepEqual(await summary(), [['Ada Obi-Eze', '2', '1', '1', 'Short NGN 5.00'], ['Bola Ade', '2', '2', '0', 'Over NGN 2.50']]);

      // Filters: the back till; Ada; Ada's closed shifts.
      await page.locator('select[name=shift-terminal]').selectOption(tills.back.id);
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=shifts] tr[data-row]").length === 1');
      assert.deepEqual(await shown(), [shiftIds.over]);
      assert.deepEqual(await summary(), [['Bola Ade', '1', '1', '0', 'Over NGN 2.50']]);
      await page.locator('select[name=shift-terminal]').selectOption('');
      await page.locator('select[name=shift-cashier]').selectOption(staffIds.ada);
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=shifts] tr[data-row]").length === 2');
      assert.deepEqual(await shown(), [shiftIds.open, shiftIds.short]);
      await page.locator('select[name=shift-status]').selectOption('closed');
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=shifts] tr[data-row]").length === 1');
      assert.deepEqual(await shown(), [shiftIds.short]);
      await page.locator('select[name=shift-status]').selectOption('');
      await page.locator('select[name=shift-cashier]').selectOption('');
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=shifts] tr[data-row]").length === 4');
      await waitForExpression(page, 'document.querySelectorAll("table[data-list=cashier-summary] tr[data-summary]").length === 2');

      // Ada's short shift in detail: every event, the reasons, the manager who approved the no-sale.
      await page.locator(`tr[data-row="${shiftIds.short}"] td.when button`).click();
      const detail = page.locator('[data-detail]');
      assert.equal(await text(detail.locator('h2')), 'Shift at Front till · Ada Obi-Eze');
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.tagName'), 'H2');
      const events = await detail.locator('table[data-list=shift-events] tbody tr').evaluateAll((found) => found.map((row) => [...row.querySelectorAll('td')].map((cell) => (cell.textContent ?? '').replace(/[\u00a0\u202f]/g, ' ').trim()).slice(1)));
      assert.deepEqual(events, [
        ['Opened with the float', 'NGN 100.00', '', '', 'Accepted'],
        ['Paid out', 'NGN 15.00', 'Bought ice', '', 'Accepted'],
        ['Drawer opened without a sale', '', 'Change for a big note', 'Bola Ade', 'Accepted'],
        ['Closed with the count', 'NGN 80.00', '', '', 'Accepted'],
      ]);
      const facts = Object.fromEntries(await detail.locator('dl.facts > div').evaluateAll((pairs) => pairs.map((pair) => [pair.querySelector('dt')!.textContent!.trim(), (pair.querySelector('dd')!.textContent ?? '').replace(/[\u00a0\u202f]/g, ' ').trim()])));
      assert.deepEqual([facts.Status, facts.Float, facts['Paid out'], facts['Drawer opened without a sale'], facts.Expected, facts.Counted, facts.Variance], ['Closed', 'NGN 100.00', 'NGN 15.00', '1', 'NGN 85.00', 'NGN 80.00', 'Short NGN 5.00']);
      await assertAccessible(page, 'shifts with a shift\'s details');
      // On a laptop the eleven columns fit without a sideways scroll, in English and in French.
      const fits = async () => {
        await page.setViewportSize(LAPTOP);
        return page.evaluate<number>('(() => { const box = document.querySelector("table[data-list=shifts]").parentElement; return box.scrollWidth - box.clientWidth; })()');
      };
      assert.equal(await fits(), 0, 'the shifts scroll sideways at 1280x800');
      await shoot('shifts');

      // In French: the same page in its words, the amounts in French.
      await page.locator('header select').selectOption('fr');
      await page.locator('main h1').filter({ hasText: 'Services de caisse' }).waitFor();
      await page.locator('nav a[href="#/staff"]').filter({ hasText: 'Personnel de caisse' }).waitFor();
      await page.locator(`tr[data-row="${shiftIds.short}"] td.when button`).click();
      await detail.locator('h2').filter({ hasText: 'Service à Front till · Ada Obi-Eze' }).waitFor();
      assert.equal(plain(await page.locator(`tr[data-row="${shiftIds.short}"] [data-variance]`).innerText()), 'Manque 5,00 NGN');
      assert.equal(plain(await page.locator(`tr[data-row="${shiftIds.over}"] [data-variance]`).innerText()), 'Excédent 2,50 NGN');
      assert.equal(plain(await page.locator(`tr[data-row="${shiftIds.balanced}"] [data-variance]`).innerText()), 'Juste');
      await assertAccessible(page, 'shifts in French');
      assert.equal(await fits(), 0, 'the shifts scroll sideways at 1280x800 in French');
      await shoot('shifts-fr');
      await openPage(page, 'staff');
      await page.locator('main h1').filter({ hasText: 'Personnel de caisse' }).waitFor();
      await staffRow('Ada Obi-Eze').locator('td[data-role]').filter({ hasText: 'Caissier' }).waitFor();
      await assertAccessible(page, 'till staff in French');
      await shoot('staff-fr');
      await page.locator('header select').selectOption('en');
      await page.locator('main h1').filter({ hasText: 'Till staff' }).waitFor();
      assert.deepEqual(pageErrors, []);
    });

    it('shows a viewer the staff and the shifts without a way to change them, and the server refuses the viewer too', async () => {
      const email = `viewer.${uniqueHandle('v')}@example.com`;
      await dashboardUser(server(), merchant, email, 'viewer');
      const viewer = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      try {
        await signIn(viewer, server().baseUrl, email);
        await openPage(viewer, 'staff');
        await viewer.locator('table[data-list=staff] tr[data-row]').nth(1).waitFor();
        assert.deepEqual(await viewer.locator('table[data-list=staff] td[data-name]').allInnerTexts(), ['Ada Obi-Eze', 'Bola Ade']);
        assert.equal(await text(viewer.locator('[data-read-only]')), 'Your role shows the till staff only: an owner or a manager changes them.');
        assert.equal(await viewer.locator('input[name=staff-name], input[name=staff-pin]').count(), 0, 'no form');
        assert.equal(await viewer.locator('main table button').count(), 0, 'no buttons in the list');
        const refused = await viewer.evaluate<[number, string][]>(`fetch('/api/dashboard/session').then((r) => r.json()).then((s) => Promise.all([
          fetch('/api/merchant/staff', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrfToken }, body: JSON.stringify({ name: 'Sneaky', role: 'manager', pin: '1234' }) }),
          fetch('/api/merchant/staff/${staffIds.ada}', { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrfToken }, body: JSON.stringify({ pin: '9999' }) }),
          fetch('/api/merchant/staff/${staffIds.bola}', { method: 'DELETE', headers: { 'x-csrf-token': s.csrfToken } }),
        ])).then((answers) => Promise.all(answers.map(async (r) => [r.status, (await r.json()).code])))`);
        assert.deepEqual(refused.map(([status]) => status), [403, 403, 403], JSON.stringify(refused));
        assert.deepEqual((await staffList()).map((member) => [member.name, member.removedAt]), [['Ada Obi-Eze', null], ['Bola Ade', null]]);
        await assertAccessible(viewer, 'till staff for a viewer');

        // The shifts read the same for a viewer.
        await openPage(viewer, 'shifts');
        await waitForExpression(viewer, 'document.querySelectorAll("table[data-list=shifts] tr[data-row]").length === 4');
        assert.equal(await viewer.locator('table[data-list=shifts] [data-tone="short"]').count(), 1);
      } finally {
        await viewer.context().close();
      }
      assert.deepEqual(pageErrors, []);
    });
  });
}
