// Cash sales, the terminal's side: the till sale document (exact integer minor units, the cart's
// lines), the refusals before anything is stored, its receipt (tendered and change, no drawer kick
// in the document), the outcome kept over a reload, and its replication: written to the replica
// (RxDB in memory here) and pushed once, also when the replication starts again after a reload.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createRxDatabase } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom, filter } from 'rxjs';
import { type Cart, cartTotals } from '@tapline/shared/cart';
import { translator } from '@tapline/shared/i18n';
import { pushedDocumentProblems } from '@tapline/shared/sync-documents';
import { SYNC_EVENTS, type TillSaleDoc } from '@tapline/shared/sync-protocol';
import { layoutReceipt } from '@tapline/hardware';
import type { PosContext } from './api.ts';
import { type CashSaleAttempt, cashSaleDoc, cashSaleStatus, cashTender, forgetCashOutcome, loadCashOutcome, rememberCashOutcome } from './cash-sales.ts';
import { reprinted, tillSaleReceipt } from './receipt.ts';
import { TILL_SALE_SCHEMA, type TillSaleCollection } from './replica.ts';
import { expectedCashMinor, shiftEvent, shiftFigures } from './shifts.ts';
import { type Ask, replicateCollection } from './sync.ts';
import type { TerminalConfig } from './terminal-config.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
const ID = '0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const CONTEXT: PosContext = { merchant: { id: 'mer_1', name: 'Mama Put', handle: 'mama_put', country: 'NG', currency: 'NGN' }, mode: 'test', terminal: { id: 'trm_front', name: 'Front counter' } };
const CONFIG = { bridgeUrl: 'ws://127.0.0.1:1/bridge', bridgeSecret: 'secret', receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos' } } as TerminalConfig;
const CART: Cart = {
  lines: [
    { productId: 'prod_jollof', name: 'Jollof rice', quantity: 2, unitPrice: 1_500, discount: 100, taxRate: 750, taxInclusive: true },
    { productId: 'prod_malt', name: 'Malt', quantity: 1, unitPrice: 500, discount: 0, taxRate: 750, taxInclusive: false },
  ],
  discount: 50,
};
const codeOf = (attempt: CashSaleAttempt) => (attempt.ok ? 'ok' : attempt.code);

describe('the cash sale document', () => {
  it('records a cart sold for cash: its total and lines, one cash tender with what was handed over and the change', () => {
    const total = cartTotals(CART).total;
    assert.equal(total, 3_387, 'Jollof 29.00 + Malt 5.00 - 0.50 off the cart + 0.37 tax added on what Malt comes to');
    const attempt = cashSaleDoc({ amountMinor: total, currency: 'NGN', description: '  table 4 ', items: CART.lines, discountMinor: CART.discount }, 5_000, 'trm_front', 'NGN', NOW, ID);
    assert.deepEqual(attempt, {
      ok: true,
      doc: {
        id: ID,
        terminalId: 'trm_front',
        amountMinor: 3_387,
        currency: 'NGN',
        capturedAt: '2026-11-24T12:00:00.000Z',
        status: 'queued',
        serverSeq: 0,
        tenders: [{ kind: 'cash', amountMinor: 3_387, tenderedMinor: 5_000, changeMinor: 1_613 }],
        description: 'table 4',
        items: CART.lines,
        discountMinor: 50,
      },
    });
    // What the server checks a pushed document against (its schema): nothing to say.
    assert.deepEqual([...pushedDocumentProblems('till_sales', attempt.ok ? attempt.doc : {})], []);
  });

  it('keeps exact integer minor units in every currency: XOF without decimals, KES with two', () => {
    const xof = cashSaleDoc({ amountMinor: 3_500, currency: 'XOF', description: '' }, 5_000, 'trm_dakar', 'XOF', NOW, ID);
    assert.ok(xof.ok);
    assert.deepEqual(xof.doc.tenders, [{ kind: 'cash', amountMinor: 3_500, tenderedMinor: 5_000, changeMinor: 1_500 }]);
    assert.equal(xof.doc.description, undefined, 'no empty description');
    assert.equal(xof.doc.items, undefined, 'a keypad amount has no lines');
    const kes = cashSaleDoc({ amountMinor: 12_995, currency: 'KES', description: 'Chai' }, 20_000, 'trm_nairobi', 'KES', NOW, ID);
    assert.ok(kes.ok);
    assert.deepEqual(kes.doc.tenders, [{ kind: 'cash', amountMinor: 12_995, tenderedMinor: 20_000, changeMinor: 7_005 }]);
    assert.ok(kes.doc.tenders.every((tender) => [tender.amountMinor, tender.tenderedMinor, tender.changeMinor].every(Number.isSafeInteger)));
    // The exact amount: no change.
    const exact = cashSaleDoc({ amountMinor: 12_995, currency: 'KES', description: '' }, 12_995, 'trm_nairobi', 'KES', NOW, ID);
    assert.deepEqual(exact.ok && exact.doc.tenders, [{ kind: 'cash', amountMinor: 12_995, tenderedMinor: 12_995, changeMinor: 0 }]);
  });

  it('refuses what the server would decline, before anything is stored', () => {
    const sale = { amountMinor: 1_000, currency: 'NGN', description: '' };
    assert.equal(codeOf(cashSaleDoc(sale, 999, 'trm', 'NGN', NOW, ID)), 'cash_short');
    assert.equal(codeOf(cashSaleDoc(sale, 0, 'trm', 'NGN', NOW, ID)), 'cash_short');
    assert.equal(codeOf(cashSaleDoc(sale, 1_000.5, 'trm', 'NGN', NOW, ID)), 'cash_short');
    assert.equal(codeOf(cashSaleDoc({ ...sale, amountMinor: 0 }, 1_000, 'trm', 'NGN', NOW, ID)), 'invalid_amount');
    assert.equal(codeOf(cashSaleDoc({ ...sale, currency: 'GHS' }, 1_000, 'trm', 'NGN', NOW, ID)), 'currency_not_accepted');
    // Lines that do not add up to the amount (the server's CartError code).
    assert.equal(codeOf(cashSaleDoc({ ...sale, amountMinor: 3_000, items: CART.lines, discountMinor: CART.discount }, 5_000, 'trm', 'NGN', NOW, ID)), 'items_total_mismatch');
  });

  it('carries the signed-in cashier and their shift, so the sale\'s cash counts in that shift\'s expected drawer', () => {
    const by = { cashierId: 'staff_ada', shiftId: '9d2c1b0a-1111-4222-8333-444455556666' };
    const sold = cashSaleDoc({ amountMinor: 75_000, currency: 'NGN', description: '' }, 100_000, 'trm_front', 'NGN', NOW, ID, by);
    assert.ok(sold.ok);
    assert.deepEqual([sold.doc.cashierId, sold.doc.shiftId], [by.cashierId, by.shiftId]);
    assert.deepEqual([...pushedDocumentProblems('till_sales', sold.doc)], []);
    // Without till staff: no cashier, no shift.
    const anonymous = cashSaleDoc({ amountMinor: 75_000, currency: 'NGN', description: '' }, 100_000, 'trm_front', 'NGN', NOW, ID);
    assert.ok(anonymous.ok && !('cashierId' in anonymous.doc) && !('shiftId' in anonymous.doc));
    // The float of 100.00, then this sale: the drawer should hold 100.00 + 750.00 (the change went back out).
    const open = shiftEvent({ shiftId: by.shiftId, kind: 'open', cashierId: by.cashierId, amountMinor: 10_000, currency: 'NGN' }, 'trm_front', NOW);
    const figures = shiftFigures(by.shiftId, [open], [sold.doc, { ...sold.doc, shiftId: 'another' }], []);
    assert.equal(figures.cashSalesMinor, 75_000);
    assert.equal(expectedCashMinor(figures), 85_000);
  });

  it('reads the cash tender back, and says what became of the record in the kiosk\'s language', () => {
    const attempt = cashSaleDoc({ amountMinor: 75_000, currency: 'NGN', description: '' }, 100_000, 'trm', 'NGN', NOW, ID);
    assert.ok(attempt.ok);
    assert.deepEqual(cashTender(attempt.doc), { amountMinor: 75_000, tenderedMinor: 100_000, changeMinor: 25_000 });
    assert.equal(cashSaleStatus(attempt.doc), 'Recorded on this till: it syncs when the till is online.');
    assert.equal(cashSaleStatus({ status: 'accepted' }), 'Recorded by the server.');
    assert.equal(cashSaleStatus({ status: 'declined', declineCode: 'change_mismatch' }), 'The server declined this sale (change_mismatch): tell the manager.');
    assert.equal(cashSaleStatus({ status: 'declined', declineCode: 'cash_short' }, translator('fr')), 'Le serveur a refusé cette vente (cash_short) : prévenez le responsable.');
  });
});

describe('the cash sale receipt', () => {
  it('prints the lines, the total, the cash tender, what was handed over and the change, once per sale, and never kicks the drawer itself', () => {
    const total = cartTotals(CART).total;
    const attempt = cashSaleDoc({ amountMinor: total, currency: 'NGN', description: '', items: CART.lines, discountMinor: CART.discount }, 5_000, 'trm_front', 'NGN', NOW, ID);
    assert.ok(attempt.ok);
    const request = tillSaleReceipt(attempt.doc, CONTEXT, CONFIG, 'en');
    assert.equal(request.jobId, `till-${ID}`);
    assert.deepEqual(request.receipt, {
      kind: 'till-sale',
      saleId: ID,
      amountMinor: 3_387,
      currency: 'NGN',
      cart: CART,
      tenders: [{ method: 'cash', amountMinor: 3_387, tenderedMinor: 5_000, changeMinor: 1_613 }],
      soldAt: '2026-11-24T12:00:00.000Z',
    });
    const document = layoutReceipt(request.merchant, request.settings, request.receipt);
    const lines = document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
    for (const expected of [/^SALE$/, /^Jollof rice$/, /^ {2}2 x 15\.00 +30\.00$/, /^Tax 7\.5 % \(added\) +0\.37$/, /TOTAL NGN 33\.87/, /^Cash +33\.87$/, /^Cash tendered +50\.00$/, /^Change +16\.13$/]) {
      assert.ok(lines.some((line) => expected.test(line)), `${expected} on the receipt:\n${lines.join('\n')}`);
    }
    assert.ok(!lines.some((line) => /OFFLINE/.test(line)), 'cash is final at the till: never marked offline');
    assert.notEqual(document.openCashDrawer, true, 'the Cash screen opens the drawer itself (openDrawer), once per sale');
    // In French, with the French money format.
    const fr = tillSaleReceipt(attempt.doc, CONTEXT, CONFIG, 'fr');
    const french = layoutReceipt(fr.merchant, fr.settings, fr.receipt).blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
    for (const expected of [/^VENTE$/, /^Espèces +33,87$/, /^Espèces reçues +50,00$/, /^Rendu +16,13$/]) {
      assert.ok(french.some((line) => expected.test(line)), `${expected} on the French receipt:\n${french.join('\n')}`);
    }
    // Sold by a signed-in cashier: their name on the receipt.
    const byAda = tillSaleReceipt(attempt.doc, CONTEXT, CONFIG, 'en', 'Ada');
    const adaLines = layoutReceipt(byAda.merchant, byAda.settings, byAda.receipt).blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
    assert.ok(adaLines.some((line) => /^Cashier +Ada$/.test(line)), adaLines.join('\n'));
    assert.ok(!lines.some((line) => /^Cashier/.test(line)), 'no cashier line without till staff');
    // A reprint from the sales history is a copy under a job of its own.
    const copy = reprinted(request, NOW);
    assert.equal(copy.jobId, `till-${ID}-copy-${NOW.getTime()}`);
    assert.equal((copy.receipt as { reprint?: boolean }).reprint, true);
  });
});

describe('the cash outcome kept over a reload', () => {
  it('remembers the sale whose change is on screen, per terminal, until the cashier leaves it', () => {
    const values = new Map<string, string>();
    const store = { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value), removeItem: (key: string) => void values.delete(key) };
    assert.equal(loadCashOutcome('trm_a', store), null);
    rememberCashOutcome('trm_a', ID, store);
    assert.equal(loadCashOutcome('trm_a', store), ID);
    assert.equal(loadCashOutcome('trm_b', store), null, 'another terminal has its own');
    forgetCashOutcome('trm_a', store);
    assert.equal(loadCashOutcome('trm_a', store), null);
    store.setItem('tapline.cashOutcome.trm_a', 'not an id');
    assert.equal(loadCashOutcome('trm_a', store), null);
  });
});

describe('a cash sale replicates once', () => {
  const databases: { close(): Promise<unknown> }[] = [];
  after(() => Promise.all(databases.map((db) => db.close())));

  /** The sync server's push for till_sales: each pushed row is recorded and answered accepted, with its serverSeq. */
  function server() {
    const pushed: TillSaleDoc[] = [];
    const ask: Ask = async <T,>(event: string, request: unknown): Promise<T> => {
      const { collection, rows } = request as { collection: string; rows?: { newDocumentState: TillSaleDoc }[] };
      assert.equal(collection, 'till_sales');
      if (event === SYNC_EVENTS.pull) return { documents: [], checkpoint: null } as T;
      const conflicts = rows!.map((row) => {
        pushed.push(row.newDocumentState);
        return { ...row.newDocumentState, status: 'accepted', serverSeq: pushed.length, settledAt: NOW.toISOString() };
      });
      return { conflicts } as T;
    };
    return { ask, pushed };
  }

  it('pushes the stored sale once, keeps the server\'s verdict, and pushes nothing again when the replication starts over (a reload)', async () => {
    const name = `till_sales_${Date.now()}`;
    const storage = getRxStorageMemory();
    const open = async () => {
      const db = await createRxDatabase({ name, storage, multiInstance: false });
      databases.push(db);
      return { db, sales: (await db.addCollections({ till_sales: { schema: TILL_SALE_SCHEMA } })).till_sales as TillSaleCollection };
    };
    const fake = server();
    const first = await open();
    const attempt = cashSaleDoc({ amountMinor: 75_000, currency: 'NGN', description: '' }, 100_000, 'trm_front', 'NGN', NOW, ID);
    assert.ok(attempt.ok);
    // Written while offline: nothing replicates yet.
    await first.sales.insert(attempt.doc);
    const replication = replicateCollection('till_sales', first.sales, 'trm_front', fake.ask, null);
    replication.connected();
    await firstValueFrom(first.sales.findOne(ID).$.pipe(filter((doc) => doc?.status === 'accepted')));
    await replication.inSync();
    assert.deepEqual(fake.pushed.map((doc) => [doc.id, doc.status, doc.tenders]), [[ID, 'queued', [{ kind: 'cash', amountMinor: 75_000, tenderedMinor: 100_000, changeMinor: 25_000 }]]]);
    assert.ok(!Object.keys(fake.pushed[0]!).some((key) => key.startsWith('_')), 'RxDB\'s own fields stay on the terminal');
    await replication.cancel();
    await first.db.close();

    // The kiosk starts again: the same replica, the same replication.
    const second = await open();
    assert.equal((await second.sales.findOne(ID).exec())?.status, 'accepted');
    const again = replicateCollection('till_sales', second.sales, 'trm_front', fake.ask, null);
    again.connected();
    await again.inSync();
    assert.equal(fake.pushed.length, 1, 'pushed exactly once');
    assert.equal(await firstValueFrom(again.queued$), 0);
    await again.cancel();
  });
});
