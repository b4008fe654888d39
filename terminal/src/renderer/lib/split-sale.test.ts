import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addCash, backLeavesSplit, cancelledSplitDrawerRefund, checkPart, forgetSplit, giftEnded, giftPaid, offlineTapEnded, offlineTapStoring, offlineTapTaken, startGift, startOfflineTap, tapTaken, tenderUnderWay, loadSplit, mobileEnded, mobilePaid, openStraightTender, rememberSplit, remainingMinor, setTip, splitSaleDoc, startMobile, startSplit, startWallet, tipFor, walletEnded, walletPaid } from './split-sale.ts';

const NOW = new Date('2026-11-28T10:00:00Z');
const sale = { amountMinor: 1_500, currency: 'NGN', description: ' Lunch ' };

function memoryStore() {
  const data = new Map<string, string>();
  return { getItem: (key: string) => data.get(key) ?? null, setItem: (key: string, value: string) => void data.set(key, value), removeItem: (key: string) => void data.delete(key), data };
}

describe('a split sale at the till (lib/split-sale.ts)', () => {
  it('takes cash up to what is left, the rest as change, and a tap for part, then becomes one till sale with every tender', () => {
    let split = startSplit(sale, 'term_1', NOW, '00000000-0000-4000-8000-000000000001');
    const cash = addCash(split, 600);
    assert.ok(cash.ok);
    split = cash.split;
    assert.equal(remainingMinor(split), 900);
    assert.equal(splitSaleDoc(split, NOW), null, 'not paid yet');
    const started = startWallet(split, 'pos-sale-1', 900);
    assert.ok(started.ok);
    assert.deepEqual(addCash(started.split, 100), { ok: false, code: 'tender_in_progress', reason: 'A payment is under way: wait for it or cancel it' });
    split = walletPaid(started.split, 'session-1');
    assert.equal(remainingMinor(split), 0);
    const doc = splitSaleDoc(split, NOW, { cashierId: 'staff_1' });
    assert.deepEqual(doc, {
      id: '00000000-0000-4000-8000-000000000001',
      terminalId: 'term_1',
      amountMinor: 1_500,
      currency: 'NGN',
      capturedAt: NOW.toISOString(),
      status: 'queued',
      serverSeq: 0,
      tenders: [
        { kind: 'cash', amountMinor: 600, tenderedMinor: 600, changeMinor: 0 },
        { kind: 'wallet', amountMinor: 900, reference: 'session-1' },
      ],
      cashierId: 'staff_1',
      description: 'Lunch',
    });
  });

  it('gives change only on the cash that finishes the sale, and refuses what does not fit', () => {
    const split = startSplit(sale, 'term_1', NOW);
    const overpaid = addCash(split, 2_000);
    assert.ok(overpaid.ok);
    assert.deepEqual(overpaid.split.tenders, [{ kind: 'cash', amountMinor: 1_500, tenderedMinor: 2_000, changeMinor: 500 }]);
    assert.equal(addCash(overpaid.split, 100).ok, false, 'nothing left to pay');
    assert.equal(checkPart(split, 1_501)?.code, 'amount_exceeds_remaining');
    assert.equal(checkPart(split, 0)?.code, 'invalid_amount');
    assert.equal(checkPart(split, 1.5)?.code, 'invalid_amount');
    const tapped = startWallet(split, 'a', 500);
    assert.ok(tapped.ok);
    const second = startWallet(walletPaid(tapped.split, 's'), 'b', 500);
    assert.deepEqual(second.ok ? null : second.code, 'wallet_taken', 'one wallet tap per sale, as the server records one');
    assert.deepEqual(walletEnded(tapped.split).tenders, [], 'a tap that did not pay takes nothing');
  });

  it('adds a tip to what is due, never below what was paid, and records it apart', () => {
    let split = startSplit(sale, 'term_1', NOW);
    assert.equal(tipFor(1_500, 10), 150);
    assert.equal(tipFor(1_505, 15), 226, 'half up to a whole minor unit');
    const tipped = setTip(split, 150);
    assert.ok(tipped.ok);
    split = tipped.split;
    assert.equal(remainingMinor(split), 1_650);
    const paid = addCash(split, 2_000);
    assert.ok(paid.ok);
    assert.equal(setTip(paid.split, 0).ok, false, 'the cash already paid the tip');
    assert.equal(splitSaleDoc(paid.split, NOW)?.tipMinor, 150);
    assert.equal(setTip(split, -1).ok, false);
  });

  it('takes mobile money for part of the sale, named by its collection', () => {
    const started = startMobile(startSplit(sale, 'term_1', NOW), 700);
    assert.ok(started.ok);
    const split = mobilePaid(started.split, 'col_1', 700, '+254•••••••011');
    assert.deepEqual(split.tenders, [{ kind: 'mobile_money', amountMinor: 700, reference: 'col_1' }], 'the till sale\'s tender names the collection only');
    assert.deepEqual(split.mobilePhones, { col_1: '+254•••••••011' }, 'the masked phone is kept beside it, for a cancel');
    assert.equal(split.pendingMobile, undefined);
    const rest = addCash(split, 800);
    assert.ok(rest.ok);
    const doc = splitSaleDoc(rest.split, NOW);
    assert.equal(JSON.stringify(doc).includes('+254'), false, 'the phone stays on the till: the till sale carries no phone');
  });

  it('takes a gift card for at most what is left, keeps its request key while it is taken, and names its redemption', () => {
    const split = startSplit(sale, 'term_1', NOW);
    assert.deepEqual(startGift(split, 1_600), { ok: false, code: 'amount_exceeds_remaining', reason: 'More than is left to pay' });
    const started = startGift(split, 1_500, 'key-1');
    assert.ok(started.ok);
    assert.deepEqual(started.split.pendingGift, { key: 'key-1', amountMinor: 1_500 });
    assert.equal(tenderUnderWay(started.split), true);
    assert.equal(splitSaleDoc(started.split, NOW), null, 'a card being taken holds the sale open');
    assert.deepEqual(giftEnded(started.split), split, 'Back takes nothing');
    // The card held less than asked: it pays its balance and the rest is left to pay.
    const paid = giftPaid(started.split, 'gcr_1', 1_000);
    assert.deepEqual(paid.tenders, [{ kind: 'gift_card', amountMinor: 1_000, reference: 'gcr_1' }]);
    assert.equal(remainingMinor(paid), 500);
    assert.equal(paid.pendingGift, undefined);
    assert.deepEqual(giftPaid({ ...paid, pendingGift: { key: 'key-1', amountMinor: 500 } }, 'gcr_1', 1_000).tenders, paid.tenders, 'a redemption is one tender, even answered twice');
  });

  it('is kept per terminal over a reload, and anything unreadable is ignored', () => {
    const store = memoryStore();
    const split = startSplit(sale, 'term_1', NOW);
    rememberSplit(split, store);
    assert.deepEqual(loadSplit('term_1', store), split);
    assert.equal(loadSplit('term_2', store), null);
    store.setItem('tapline.splitSale.term_2', '{not json');
    assert.equal(loadSplit('term_2', store), null);
    store.setItem('tapline.splitSale.term_2', JSON.stringify({ ...split, terminalId: 'term_2', tenders: [{ kind: 'cash', amountMinor: -5 }] }));
    assert.equal(loadSplit('term_2', store), null);
    forgetSplit('term_1', store);
    assert.equal(loadSplit('term_1', store), null);
  });

  it('takes the cash a cancel gives for ended gift cards out of the open shift, by the cashier who cancelled', () => {
    const split = startSplit(sale, 'term_1', new Date('2026-11-29T10:00:00Z'), '0b0e3c9a-8f52-4b8e-9a3c-1f2d3e4f5a6b');
    const by = { cashierId: 'stf_amina', shiftId: '7d0b2f1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b' };
    const now = new Date('2026-11-29T10:05:00Z');
    assert.deepEqual(cancelledSplitDrawerRefund(split, 500, by, now), {
      id: 'split-cancel-0b0e3c9a-8f52-4b8e-9a3c-1f2d3e4f5a6b',
      shiftId: by.shiftId,
      cashierId: 'stf_amina',
      amountMinor: 500,
      currency: 'NGN',
      createdAt: '2026-11-29T10:05:00.000Z',
    });
    assert.equal(cancelledSplitDrawerRefund(split, 0, by, now), null, 'cash tenders given back change nothing');
    assert.equal(cancelledSplitDrawerRefund(split, 500, { cashierId: 'stf_amina' }, now), null, 'no shift open: nothing to count it in');
  });

  it('takes a tap for part of the sale offline: one tap per sale, online or offline, named by its offline payment', () => {
    let split = startSplit(sale, 'term_1', NOW, '00000000-0000-4000-8000-000000000002');
    const cash = addCash(split, 1_000);
    assert.ok(cash.ok);
    split = cash.split;
    assert.deepEqual(startOfflineTap(split, 600), { ok: false, code: 'amount_exceeds_remaining', reason: 'More than is left to pay' });
    const started = startOfflineTap(split, 500);
    assert.ok(started.ok);
    assert.equal(tenderUnderWay(started.split), true, 'the offline payment screen has it');
    assert.equal(offlineTapEnded(started.split).pendingOffline, undefined, 'back: nothing was taken');
    const storing = offlineTapStoring(started.split, 'pay_1');
    assert.deepEqual(storing.pendingOffline, { amountMinor: 500, paymentId: 'pay_1' }, 'remembered before it is stored');
    split = offlineTapTaken(storing, 'pay_1', 500);
    assert.deepEqual(offlineTapTaken({ ...split, pendingOffline: { amountMinor: 500 } }, 'pay_1', 500).tenders.length, 2, 'taken once');
    assert.equal(tapTaken(split), true);
    assert.equal(remainingMinor(split), 0);
    assert.deepEqual(splitSaleDoc(split, NOW)?.tenders, [{ kind: 'cash', amountMinor: 1_000, tenderedMinor: 1_000, changeMinor: 0 }, { kind: 'offline_tap', amountMinor: 500, reference: 'pay_1' }]);
    const again = startSplit(sale, 'term_1', NOW);
    const tapped = offlineTapTaken(startOfflineTap(again, 500).ok ? { ...again, pendingOffline: { amountMinor: 500 } } : again, 'pay_2', 500);
    assert.equal(startWallet(tapped, 'pos-sale-2', 500).ok, false, 'no online tap after an offline one');
    assert.equal(startOfflineTap(tapped, 500).ok, false, 'nor a second offline tap');
  });
  it('opens the sale screen\'s Gift card or Mobile money for everything due, after the tip, and only on a split sale with nothing taken', () => {
    const split = startSplit(sale, 'term_1', NOW);
    const gift = openStraightTender(split, 'gift_card', false, 'key-1');
    assert.deepEqual(gift, { ok: true, split: { ...split, pendingGift: { key: 'key-1', amountMinor: 1_500 } } });
    const mobile = openStraightTender(split, 'mobile_money', false);
    assert.deepEqual(mobile, { ok: true, split: { ...split, pendingMobile: { amountMinor: 1_500 } } });
    // The tip asked first: the panel waits for it, then takes the tip too.
    assert.equal(openStraightTender(split, 'gift_card', true), null);
    const tipped = setTip(split, 150);
    assert.ok(tipped.ok);
    const afterTip = openStraightTender(tipped.split, 'mobile_money', false);
    assert.ok(afterTip?.ok);
    assert.deepEqual(afterTip.split.pendingMobile, { amountMinor: 1_650 });
    // A split sale that already has a tender, or one under way (a reload), keeps its own screen.
    const withCash = addCash(split, 500);
    assert.ok(withCash.ok);
    assert.equal(openStraightTender(withCash.split, 'gift_card', false), null);
    assert.equal(openStraightTender(gift!.ok ? gift.split : split, 'mobile_money', false), null);
  });

  it('goes back to the sale from a panel the sale screen opened only while nothing is taken', () => {
    const split = startSplit(sale, 'term_1', NOW);
    const started = startMobile(split, 1_500);
    assert.ok(started.ok);
    assert.equal(backLeavesSplit(mobileEnded(started.split), 'mobile_money'), true);
    assert.equal(backLeavesSplit(giftEnded(split), null), false, 'opened with Split: Back stays on the split screen');
    const part = giftPaid({ ...split, pendingGift: { key: 'k', amountMinor: 1_500 } }, 'gcr_1', 1_000);
    assert.equal(backLeavesSplit(part, 'gift_card'), false, 'a card paid part: the split screen stays with what is left');
  });
});
