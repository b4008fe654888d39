// Today's sales: POS sales, offline payments and gift cards in one list, newest first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GiftCardSaleDoc, OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import { translator } from '@tapline/shared/i18n';
import { historyRows, paidTotals, startOfToday } from './history.ts';
import type { PosSaleDoc } from './pos-sales.ts';

const sale = (id: string, at: string, fields: Partial<PosSaleDoc>): PosSaleDoc => ({ id, terminalId: 't', amountMinor: 1000, currency: 'NGN', description: '', capturedAt: at, status: 'pending', ...fields });
const payment = (id: string, at: string, fields: Partial<OfflinePaymentDoc>): OfflinePaymentDoc => ({ id, terminalId: 't', kind: 'tap', tagId: 'TG00000001', amountMinor: 500, currency: 'NGN', description: '', capturedAt: at, status: 'queued', serverSeq: 0, ...fields });
const card = (id: string, at: string, fields: Partial<GiftCardSaleDoc>): GiftCardSaleDoc => ({ id, terminalId: 't', codeHash: 'h', codePrefix: 'gc_0123456', amountMinor: 2000, currency: 'NGN', capturedAt: at, status: 'queued', serverSeq: 0, ...fields });

const cash = (id: string, at: string, fields: Partial<TillSaleDoc>): TillSaleDoc => ({ id, terminalId: 't', amountMinor: 750, currency: 'NGN', capturedAt: at, status: 'queued', serverSeq: 0, tenders: [{ kind: 'cash', amountMinor: 750, tenderedMinor: 1000, changeMinor: 250 }], ...fields });

describe('sales history', () => {
  it('lists every kind of sale with method, payer and status, newest first, and offers reprints only where a receipt exists', () => {
    const rows = historyRows(
      [
        sale('s1', '2026-11-24T09:00:00.000Z', { status: 'completed', tagId: 'TG1', payerHandle: '@ada' }),
        sale('s2', '2026-11-24T09:05:00.000Z', { status: 'completed', payerHandle: '@bola' }),
        sale('s3', '2026-11-24T09:10:00.000Z', { status: 'pending', localEnd: 'cancelled' }),
        sale('s4', '2026-11-24T09:15:00.000Z', { status: 'opening' }),
        sale('s5', '2026-11-24T09:20:00.000Z', { status: 'expired' }),
      ],
      [payment('p1', '2026-11-24T10:00:00.000Z', { status: 'declined', declineCode: 'insufficient_funds', payerHandle: '@chi' }), payment('p2', '2026-11-24T10:05:00.000Z', {})],
      [card('g1', '2026-11-24T11:00:00.000Z', { status: 'accepted' })],
    );
    assert.deepEqual(
      rows.map((row) => [row.id, row.method, row.payer, row.status, row.outcome, row.reprintable]),
      [
        ['g1', 'Gift card (cash)', 'gc_0123456…', 'Active', 'paid', false],
        ['p2', 'Offline tap', 'TG00000001', 'Waiting to settle', 'waiting', true],
        ['p1', 'Offline tap', '@chi', 'Declined', 'declined', false],
        ['s5', '—', '—', 'Expired', 'ended', false],
        ['s3', '—', '—', 'Cancelled on this till (not confirmed yet)', 'ended', false],
        ['s2', 'QR code', '@bola', 'Paid', 'paid', true],
        ['s1', 'Tap', '@ada', 'Paid', 'paid', true],
      ],
    );
    assert.equal(rows.find((row) => row.id === 'p1')?.code, 'insufficient_funds');
    assert.deepEqual(paidTotals(rows), [{ currency: 'NGN', amountMinor: 4000, count: 3, refundedMinor: 0, refundCount: 0, netMinor: 4000 }]);
  });

  it('lists a sale taken offline instead once: its offline payment, unless the customer had paid the sale by QR meanwhile', () => {
    const rows = historyRows(
      [
        sale('s1', '2026-11-24T09:00:00.000Z', { sessionId: 'x1', localEnd: 'cancelled', offlinePaymentId: 'p1' }),
        sale('s2', '2026-11-24T09:10:00.000Z', { sessionId: 'x2', status: 'completed', payerHandle: '@ada', offlinePaymentId: 'p2' }),
        // The payment was never stored (the cashier went back): the cancelled sale stays listed.
        sale('s3', '2026-11-24T09:20:00.000Z', { sessionId: 'x3', localEnd: 'cancelled', offlinePaymentId: 'p3' }),
      ],
      [payment('p1', '2026-11-24T09:01:00.000Z', {}), payment('p2', '2026-11-24T09:11:00.000Z', { status: 'declined', declineCode: 'sale_paid_by_qr' })],
      [],
    );
    assert.deepEqual(rows.map((row) => [row.id, row.outcome]), [['s3', 'ended'], ['p2', 'declined'], ['s2', 'paid'], ['p1', 'waiting']]);
  });

  it('lists the refunds made here as negative rows, and totals paid, refunded and net', () => {
    const rows = historyRows(
      [sale('s1', '2026-11-24T09:00:00.000Z', { status: 'completed', tagId: 'TG1', payerHandle: '@ada', amountMinor: 3300 })],
      [payment('p1', '2026-11-24T09:30:00.000Z', { status: 'accepted', payerHandle: '@bola' })],
      [],
      undefined,
      [{ id: 'rf_1', saleId: 'x1', amountMinor: 1500, currency: 'NGN', createdAt: '2026-11-24T10:00:00.000Z', payerHandle: '@ada' }],
    );
    assert.deepEqual(rows.map((row) => [row.id, row.kind, row.amountMinor, row.method, row.payer, row.status, row.outcome, row.reprintable]), [
      ['rf_1', 'refund', -1500, 'Refund', '@ada', 'Refunded', 'refunded', false],
      ['p1', 'offline', 500, 'Offline tap', '@bola', 'Paid', 'paid', true],
      ['s1', 'pos', 3300, 'Tap', '@ada', 'Paid', 'paid', true],
    ]);
    assert.deepEqual(paidTotals(rows), [{ currency: 'NGN', amountMinor: 3800, count: 2, refundedMinor: 1500, refundCount: 1, netMinor: 2300 }]);
  });

  it('lists cash sales as paid from the moment the cash is in the drawer, synced or not, and a declined one as declined', () => {
    const rows = historyRows(
      [sale('s1', '2026-11-24T09:00:00.000Z', { status: 'completed', tagId: 'TG1', payerHandle: '@ada', amountMinor: 3300 })],
      [],
      [],
      undefined,
      [],
      [
        cash('c1', '2026-11-24T10:00:00.000Z', {}),
        cash('c2', '2026-11-24T10:05:00.000Z', { status: 'accepted', serverSeq: 4, amountMinor: 1200 }),
        cash('c3', '2026-11-24T10:10:00.000Z', { status: 'declined', declineCode: 'change_mismatch', amountMinor: 999 }),
      ],
    );
    assert.deepEqual(rows.map((row) => [row.id, row.kind, row.amountMinor, row.method, row.payer, row.status, row.outcome, row.reprintable, row.code]), [
      ['c3', 'cash', 999, 'Cash', '—', 'Declined', 'declined', false, 'change_mismatch'],
      ['c2', 'cash', 1200, 'Cash', '—', 'Paid', 'paid', true, undefined],
      ['c1', 'cash', 750, 'Cash', '—', 'Paid (not synced yet)', 'paid', true, undefined],
      ['s1', 'pos', 3300, 'Tap', '@ada', 'Paid', 'paid', true, undefined],
    ]);
    // The declined one is not counted: paid is the tap and the two cash sales.
    assert.deepEqual(paidTotals(rows), [{ currency: 'NGN', amountMinor: 5250, count: 3, refundedMinor: 0, refundCount: 0, netMinor: 5250 }]);
    const french = historyRows([], [], [], translator('fr'), [], [cash('c1', '2026-11-24T10:00:00.000Z', {})]);
    assert.deepEqual([french[0]?.method, french[0]?.status], ['Espèces', 'Payé (pas encore synchronisé)']);
  });

  it('names how a till sale was paid: its one tender (a gift card or mobile money alone is not cash), or Split for several', () => {
    const at = '2026-11-24T10:00:00.000Z';
    const docs = [
      cash('g1', at, { amountMinor: 1500, tenders: [{ kind: 'gift_card', amountMinor: 1500, reference: 'gcr_1' }] }),
      cash('m1', at, { amountMinor: 1500, tenders: [{ kind: 'mobile_money', amountMinor: 1500, reference: 'col_1' }] }),
      cash('s1', at, { amountMinor: 1500, tenders: [{ kind: 'gift_card', amountMinor: 1000, reference: 'gcr_2' }, { kind: 'cash', amountMinor: 500, tenderedMinor: 500, changeMinor: 0 }] }),
      cash('c1', at, {}),
    ];
    const methods = (language: 'en' | 'fr') => Object.fromEntries(historyRows([], [], [], translator(language), [], docs).map((row) => [row.id, row.method]));
    assert.deepEqual(methods('en'), { g1: 'Gift card', m1: 'Mobile money', s1: 'Split', c1: 'Cash' });
    assert.deepEqual(methods('fr'), { g1: 'Carte cadeau', m1: 'Monnaie mobile', s1: 'Paiement partagé', c1: 'Espèces' });
  });

  it('starts today at local midnight, as a UTC time the replica can compare', () => {
    const start = startOfToday(new Date(2026, 10, 24, 15, 30));
    assert.equal(new Date(start).getTime(), new Date(2026, 10, 24, 0, 0, 0, 0).getTime());
    assert.match(start, /Z$/);
  });
});
