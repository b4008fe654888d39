import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type OurPayout, type TheirPayout, compareDay, judge } from './compare.ts';

const ours = (status: OurPayout['status'], amount = 1000, paymentId = 'pay_1'): OurPayout => ({ paymentId, status, amount, currency: 'NGN', providerReference: null });
const theirs = (status: TheirPayout['status'], amount: number | null = 1000, paymentId: string | undefined = 'pay_1'): TheirPayout => ({
  paymentId, providerReference: 'TRF_1', status, amount, currency: amount === null ? null : 'NGN',
});

describe('reconciliation: one payout judged on both sides', () => {
  it('money decides the kind', () => {
    const cases: [OurPayout | undefined, TheirPayout | undefined, ReturnType<typeof judge>][] = [
      [ours('completed'), theirs('completed'), 'matched'],
      [ours('completed'), theirs('completed', 900), 'amount_differs'],
      [ours('completed'), { ...theirs('completed'), currency: 'GHS' }, 'amount_differs'],
      [ours('completed'), theirs('completed', null), 'matched'],
      [ours('completed'), undefined, 'ours_only'],
      [ours('completed'), theirs('failed'), 'ours_only'],
      [ours('completed'), theirs('reversed'), 'status_differs'],
      [ours('completed'), theirs('pending'), 'status_differs'],
      [ours('failed'), theirs('completed'), 'provider_only'],
      [ours('reversed'), theirs('completed'), 'provider_only'],
      [ours('failed'), theirs('pending'), 'status_differs'],
      [ours('failed'), theirs('failed'), 'matched'],
      [ours('failed'), theirs('reversed'), 'matched'],
      [ours('reversed'), theirs('reversed'), 'matched'],
      [ours('reversed'), undefined, 'matched'],
      [ours('failed'), undefined, 'matched'],
      [ours('processing'), theirs('pending'), 'matched'],
      [ours('pending'), undefined, 'matched'],
      [ours('processing'), theirs('completed'), 'status_differs'],
      [ours('processing'), theirs('failed'), 'status_differs'],
      [undefined, theirs('completed', 1000, undefined), 'provider_only'],
      [undefined, theirs('pending', 1000, undefined), 'provider_only'],
      [undefined, theirs('failed', 1000, undefined), undefined],
      [undefined, theirs('reversed', 1000, undefined), undefined],
    ];
    for (const [mine, provider, expected] of cases) assert.equal(judge(mine, provider), expected, `${mine?.status ?? 'none'} / ${provider?.status ?? 'none'}`);
  });

  it('a day: totals per currency, the clearing net, a second record under one key, a payout of another day', () => {
    const day = compareDay({
      ours: [ours('completed', 1000, 'pay_a'), ours('processing', 250, 'pay_b'), { ...ours('completed', 700, 'pay_c'), currency: 'KES' }],
      theirs: [
        theirs('completed', 1000, 'pay_a'),
        theirs('completed', 1000, 'pay_a'),
        theirs('pending', 250, 'pay_b'),
        { ...theirs('completed', 700, 'pay_c'), currency: 'KES' },
        theirs('completed', 300, 'pay_old'),
      ],
      elsewhere: [ours('completed', 300, 'pay_old')],
    });
    assert.equal(day.matched, 4);
    assert.deepEqual(day.mismatches, [{ kind: 'provider_only', direction: 'payout', paymentId: 'pay_a', providerReference: 'TRF_1', ours: { status: 'completed', amount: 1000, currency: 'NGN' }, theirs: { status: 'completed', amount: 1000, currency: 'NGN' } }]);
    assert.deepEqual(day.ourTotals, { KES: 700, NGN: 1000 });
    assert.deepEqual(day.providerTotals, { KES: 700, NGN: 2300 });
    assert.deepEqual(day.clearingNet, { KES: 0, NGN: 250 });
  });

  it('collections: their statuses judged like payouts, ids matched within one direction only, each mismatch keeps its direction', () => {
    const col = (status: OurPayout['status'], amount = 1000, id = 'col_1'): OurPayout => ({ paymentId: id, direction: 'collection', status, amount, currency: 'KES', providerReference: null });
    const them = (status: TheirPayout['status'], amount: number | null = 1000, id = 'col_1'): TheirPayout => ({ paymentId: id, direction: 'collection', providerReference: 'ws_CO_1', status, amount, currency: amount === null ? null : 'KES' });
    const cases: [OurPayout | undefined, TheirPayout | undefined, ReturnType<typeof judge>][] = [
      [col('completed'), them('completed'), 'matched'],
      [col('completed'), them('completed', null), 'matched'],
      [col('completed'), them('completed', 1100), 'amount_differs'],
      [col('completed'), them('failed'), 'ours_only'],
      [col('completed'), undefined, 'ours_only'],
      [col('expired'), them('completed'), 'provider_only'],
      [col('cancelled'), them('completed'), 'provider_only'],
      [col('failed'), them('completed'), 'provider_only'],
      [col('expired'), undefined, 'matched'],
      [col('cancelled'), them('failed'), 'matched'],
      [col('pending'), them('pending'), 'matched'],
      [col('pending'), them('completed'), 'status_differs'],
      [col('failed'), them('pending'), 'status_differs'],
    ];
    for (const [mine, provider, expected] of cases) assert.equal(judge(mine, provider), expected, `${mine?.status ?? 'none'} / ${provider?.status ?? 'none'}`);

    // A payout and a collection under the same id are two things: the provider's collection record does not answer the payout.
    const day = compareDay({
      ours: [col('completed', 1000, 'x_1'), col('failed', 500, 'col_2'), col('completed', 700, 'col_3')],
      theirs: [them('completed', 1000, 'x_1'), { ...them('completed', 500, 'col_2') }, them('completed', 800, 'col_3'), { paymentId: 'x_1', providerReference: 'TRF_9', status: 'completed', amount: 1000, currency: 'KES' }],
      elsewhere: [],
    });
    assert.equal(day.matched, 1);
    assert.deepEqual(day.mismatches.map((mismatch) => [mismatch.kind, mismatch.direction, mismatch.paymentId]), [
      ['provider_only', 'collection', 'col_2'],
      ['amount_differs', 'collection', 'col_3'],
      ['provider_only', 'payout', null],
    ]);
    assert.deepEqual([day.ourTotals, day.providerTotals], [{ KES: 1700 }, { KES: 2300 + 1000 }]);
  });

  it('bills: judged like payouts by key (the provider holds none, or paid), each mismatch says bill, a bill never answers a payout of the same id', () => {
    const bill = (status: OurPayout['status'], amount = 50_000, id = 'bill_1'): OurPayout => ({ paymentId: id, direction: 'bill', status, amount, currency: 'NGN', providerReference: null });
    const paid = (amount = 50_000, id = 'bill_1'): TheirPayout => ({ paymentId: id, direction: 'bill', providerReference: 'CF-FLYAPI-1', status: 'completed', amount, currency: 'NGN' });
    const day = compareDay({
      ours: [bill('completed', 50_000, 'bill_ok'), bill('failed', 50_000, 'bill_paid'), bill('completed', 50_000, 'bill_none'), bill('completed', 50_100, 'bill_more'), bill('pending', 50_000, 'bill_open'), bill('failed', 50_000, 'bill_declined')],
      theirs: [
        paid(50_000, 'bill_ok'),
        paid(50_000, 'bill_paid'),
        paid(50_000, 'bill_more'),
        paid(50_000, 'bill_open'),
        // A payout's answer under a bill's id is not the bill's.
        { paymentId: 'bill_none', providerReference: 'TRF_1', status: 'completed', amount: 50_000, currency: 'NGN' },
      ],
      elsewhere: [],
    });
    assert.deepEqual(day.mismatches.map((mismatch) => [mismatch.kind, mismatch.direction, mismatch.paymentId]), [
      ['provider_only', 'bill', 'bill_paid'],
      ['amount_differs', 'bill', 'bill_more'],
      ['status_differs', 'bill', 'bill_open'],
      ['provider_only', 'payout', null],
      ['ours_only', 'bill', 'bill_none'],
    ]);
    assert.equal(day.matched, 2, 'the paid one, and the declined one the provider holds none of');
    assert.deepEqual([day.ourTotals, day.providerTotals], [{ NGN: 150_100 }, { NGN: 250_000 }]);
  });
});
