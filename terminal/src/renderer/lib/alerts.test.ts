// Alerts the cashier must acknowledge, raised from the replica (RxDB in memory here): a declined
// offline payment, gift card sale or cash sale, and a sale ended on the till that the customer had paid.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createRxDatabase } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom, filter, map } from 'rxjs';
import type { OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import { acknowledgeAlert, openAlerts$, paidAfterLocalEndAlert, watchForAlerts } from './alerts.ts';
import type { PosSaleDoc } from './pos-sales.ts';
import { GIFT_CARD_SALE_SCHEMA, KEEP_AS_IS, KIOSK_ALERT_MIGRATIONS, KIOSK_ALERT_SCHEMA, OFFLINE_PAYMENT_SCHEMA, POS_SALE_SCHEMA, type Replica, TILL_SALE_SCHEMA } from './replica.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
const closers: (() => Promise<unknown>)[] = [];
after(() => Promise.all(closers.map((close) => close())));

async function replica(): Promise<Replica> {
  const db = await createRxDatabase({ name: `alerts_test_${closers.length}_${Date.now()}`, storage: getRxStorageMemory(), multiInstance: false });
  closers.push(() => db.close());
  const c = await db.addCollections({
    offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA, migrationStrategies: KEEP_AS_IS },
    gift_card_sales: { schema: GIFT_CARD_SALE_SCHEMA },
    till_sales: { schema: TILL_SALE_SCHEMA },
    pos_sales: { schema: POS_SALE_SCHEMA, migrationStrategies: KEEP_AS_IS },
    kiosk_alerts: { schema: KIOSK_ALERT_SCHEMA, migrationStrategies: KIOSK_ALERT_MIGRATIONS },
  });
  return { db: db as never, payments: c.offline_payments, giftCardSales: c.gift_card_sales, tillSales: c.till_sales, posSales: c.pos_sales, alerts: c.kiosk_alerts } as unknown as Replica;
}

const payment = (fields: Partial<OfflinePaymentDoc>): OfflinePaymentDoc => ({ id: 'pay_1', terminalId: 't', kind: 'tap', tagId: 'TG00000001', amountMinor: 500, currency: 'NGN', description: '', capturedAt: NOW.toISOString(), status: 'queued', serverSeq: 0, ...fields });

describe('cashier alerts', () => {
  it('raises one alert for a declined offline payment, keeps it until acknowledged, never raises it again, and names the split sale a declined tap was part of', async () => {
    const r = await replica();
    const stop = watchForAlerts(r, () => NOW);
    closers.push(async () => stop());
    await r.payments.insert(payment({}));
    const doc = await r.payments.findOne('pay_1').exec();
    await doc!.incrementalPatch({ status: 'declined', declineCode: 'insufficient_funds', declineReason: 'Wallet @ada did not have 5 NGN', payerHandle: '@ada', serverSeq: 3 });
    const [raised] = await firstValueFrom(openAlerts$(r.alerts).pipe(filter((open) => open.length > 0)));
    assert.deepEqual(
      { ...raised, raisedAt: undefined },
      { id: 'offline_payment_declined:pay_1', kind: 'offline_payment_declined', refId: 'pay_1', amountMinor: 500, currency: 'NGN', capturedAt: NOW.toISOString(), raisedAt: undefined, status: 'open', payer: '@ada', code: 'insufficient_funds', reason: 'Wallet @ada did not have 5 NGN' },
    );
    await acknowledgeAlert(r.alerts, raised!.id, NOW);
    // The document changes again (a re-pulled verdict): no new alert.
    await (await r.payments.findOne('pay_1').exec())!.incrementalPatch({ settledAt: NOW.toISOString() });
    // Proof the watcher has handled that change (it writes one emission at a time, in order): a
    // later declined payment's alert, raised from an emission that holds pay_1 as well.
    await r.payments.insert(payment({ id: 'pay_2', status: 'declined', declineCode: 'insufficient_funds', serverSeq: 4 }));
    await firstValueFrom(openAlerts$(r.alerts).pipe(filter((open) => open.some((alert) => alert.refId === 'pay_2'))));
    const all = await r.alerts.find({ sort: [{ id: 'asc' }] }).exec();
    assert.deepEqual(all.map((alert) => [alert.id, alert.status]), [['offline_payment_declined:pay_1', 'acknowledged'], ['offline_payment_declined:pay_2', 'open']]);

    // A declined tap taken for part of a split sale names that sale: the cashier knows it is short.
    await r.payments.insert(payment({ id: 'pay_split', amountMinor: 900, tenderOf: 'sale_split', status: 'declined', declineCode: 'tag_disabled', payerHandle: '@ada', serverSeq: 5 }));
    const [split] = await firstValueFrom(openAlerts$(r.alerts).pipe(map((open) => open.filter((alert) => alert.refId === 'pay_split')), filter((found) => found.length > 0)));
    assert.deepEqual([split!.kind, split!.saleId, split!.amountMinor, split!.code], ['offline_payment_declined', 'sale_split', 900, 'tag_disabled']);
  });

  it('raises one alert for a cash sale the server declined, with its code and reason, and none while it is queued or accepted', async () => {
    const r = await replica();
    const stop = watchForAlerts(r, () => NOW);
    closers.push(async () => stop());
    const sale: TillSaleDoc = { id: 'cash_1', terminalId: 't', amountMinor: 75_000, currency: 'NGN', capturedAt: NOW.toISOString(), status: 'queued', serverSeq: 0, tenders: [{ kind: 'cash', amountMinor: 75_000, tenderedMinor: 100_000, changeMinor: 25_000 }] };
    await r.tillSales.insert(sale);
    await r.tillSales.insert({ ...sale, id: 'cash_2', status: 'accepted', serverSeq: 1 });
    await (await r.tillSales.findOne('cash_1').exec())!.incrementalPatch({ status: 'declined', declineCode: 'change_mismatch', declineReason: 'Cash tender 1: change must be 250 NGN', serverSeq: 2 });
    const [raised] = await firstValueFrom(openAlerts$(r.alerts).pipe(filter((open) => open.length > 0)));
    assert.deepEqual(
      { ...raised, raisedAt: undefined },
      { id: 'till_sale_declined:cash_1', kind: 'till_sale_declined', refId: 'cash_1', amountMinor: 75_000, currency: 'NGN', capturedAt: NOW.toISOString(), raisedAt: undefined, status: 'open', code: 'change_mismatch', reason: 'Cash tender 1: change must be 250 NGN' },
    );
    assert.equal(await r.alerts.count().exec(), 1, 'the queued and accepted sales raise nothing');
  });

  it('raises an alert for a sale ended on the till that the server says was paid, unless an offline payment replaced it', () => {
    const sale: PosSaleDoc = { id: 's1', terminalId: 't', amountMinor: 400, currency: 'NGN', description: '', capturedAt: NOW.toISOString(), status: 'completed', localEnd: 'cancelled', payerHandle: '@ada' };
    assert.equal(paidAfterLocalEndAlert(sale, NOW)?.kind, 'sale_paid_after_cancel');
    assert.equal(paidAfterLocalEndAlert({ ...sale, localEnd: undefined }, NOW), null);
    assert.equal(paidAfterLocalEndAlert({ ...sale, status: 'cancelled' }, NOW), null);
    // The voided offline payment raises its own alert.
    assert.equal(paidAfterLocalEndAlert({ ...sale, offlinePaymentId: 'pay_1' }, NOW), null);
  });
});
