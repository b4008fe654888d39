import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Api } from './api.ts';
import { cardPart, cardRefusal, checkCard, cleanCode, codeLooksValid, isGiftCardError, redeemCard } from './gift-card-tender.ts';

const CODE = `gc_${'ab12'.repeat(16)}`;
const card = { code: CODE, valid: true, status: 'active', balanceMinor: 1_000, currency: 'NGN', hasPin: false, expiresAt: '2027-01-01T00:00:00.000Z' };

describe('a gift card at the till (lib/gift-card-tender.ts)', () => {
  it('reads a code as scanned or typed: spaces dropped, any case', () => {
    assert.equal(cleanCode(` ${CODE.toUpperCase().slice(0, 10)} ${CODE.toUpperCase().slice(10)}\n`), CODE);
    assert.equal(codeLooksValid(CODE.toUpperCase()), true);
    assert.equal(codeLooksValid('gc_123'), false);
    assert.equal(codeLooksValid('TLQ1.abc'), false);
  });

  it('pays at most its balance, and refuses a card it cannot take with a code the screen explains', () => {
    assert.equal(cardPart(card, 1_500), 1_000);
    assert.equal(cardPart(card, 400), 400);
    assert.equal(cardRefusal(card, 'NGN'), null);
    assert.equal(cardRefusal(card, 'KES'), 'gift_card_currency');
    assert.equal(cardRefusal({ ...card, valid: false, status: 'used' }, 'NGN'), 'gift_card_used');
    assert.equal(cardRefusal({ ...card, valid: false, status: 'expired' }, 'NGN'), 'gift_card_expired');
    assert.equal(cardRefusal({ ...card, valid: false, status: 'cancelled' }, 'NGN'), 'gift_card_not_active');
    assert.equal(cardRefusal({ ...card, balanceMinor: 0 }, 'NGN'), 'gift_card_empty');
    for (const code of ['gift_card_currency', 'wrong_pin', 'invalid_code']) assert.equal(isGiftCardError(code), true);
    assert.equal(isGiftCardError('session_not_pending'), false);
  });

  it('checks and redeems through the api in minor units, with the request key and the PIN only when there is one', async () => {
    const sent: unknown[] = [];
    const api = {
      verifyGiftCard: async (code: string) => {
        sent.push(['verify', code]);
        return { valid: true, amount: 12.5, amountRemaining: 12.5, currency: 'NGN', expiresAt: card.expiresAt, hasPin: true, locked: false, status: 'active' };
      },
      redeemGiftCard: async (body: unknown, key: string) => {
        sent.push(['redeem', body, key]);
        return { card: { id: 'gc_1', status: 'active', amountRemaining: 2.5 }, redemption: { id: 'gcr_9', amount_drawn: 10, credited_amount: 10, credited_currency: 'NGN' } };
      },
    } as unknown as Api;
    const checked = await checkCard(api, CODE.toUpperCase());
    assert.deepEqual(checked, { code: CODE, valid: true, status: 'active', balanceMinor: 1_250, currency: 'NGN', hasPin: true, expiresAt: card.expiresAt });
    assert.deepEqual(await redeemCard(api, checked, 1_000, '1357', 'k1'), { reference: 'gcr_9', amountMinor: 1_000, remainingMinor: 250 });
    await redeemCard(api, checked, 1_000, null, 'k2');
    assert.deepEqual(sent, [
      ['verify', CODE],
      ['redeem', { code: CODE, redeemAmount: 10, pinCode: '1357' }, 'k1'],
      ['redeem', { code: CODE, redeemAmount: 10 }, 'k2'],
    ]);
  });
});
