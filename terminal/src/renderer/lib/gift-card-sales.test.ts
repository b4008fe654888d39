// Gift cards sold at the till, the terminal's side: the document that replicates (hash and prefix,
// never the code), the refusals before anything is stored, the printed card and its expiry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GIFT_CARD_CODE, giftCardCodeHash } from '@tapline/shared/gift-card-code';
import type { GiftCardSaleDoc } from '@tapline/shared/sync-protocol';
import type { PosContext } from './api.ts';
import { translator } from '@tapline/shared/i18n';
import { type GiftCardSaleAttempt, giftCardCurrencies, giftCardSaleOutcome, newGiftCardSale, printedExpiry } from './gift-card-sales.ts';
import { giftCardSaleReceipt } from './receipt.ts';
import type { TerminalConfig } from './terminal-config.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
const ID = '0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const INPUT = { amountMinor: 500_000, currency: 'NGN', designTheme: 'birthday' as const, message: '  Happy birthday, Ada!  ' };
const CONTEXT: PosContext = { merchant: { id: 'mer_1', name: 'Mama Put', handle: 'mama_put', country: 'NG', currency: 'NGN' }, mode: 'test', terminal: { id: 'trm_front', name: 'Front counter' } };
const CONFIG = { bridgeUrl: 'ws://127.0.0.1:1/bridge', bridgeSecret: 'secret', receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos', footer: 'See you soon' } } as TerminalConfig;

const refusal = (attempt: GiftCardSaleAttempt) => (attempt.ok ? 'ok' : attempt.code);

describe('gift cards sold at the terminal', () => {
  it('makes a queued document with the code\'s hash and prefix and keeps the code apart', async () => {
    const attempt = await newGiftCardSale(INPUT, 'trm_front', NOW, ID);
    assert.ok(attempt.ok);
    const { doc, code } = attempt;
    assert.match(code, GIFT_CARD_CODE);
    assert.deepEqual(doc, {
      id: ID,
      terminalId: 'trm_front',
      codeHash: await giftCardCodeHash(code),
      codePrefix: code.slice(0, 10),
      amountMinor: 500_000,
      currency: 'NGN',
      designTheme: 'birthday',
      message: 'Happy birthday, Ada!',
      capturedAt: '2026-11-24T12:00:00.000Z',
      status: 'queued',
      serverSeq: 0,
    });
    assert.ok(!JSON.stringify(doc).includes(code), 'the document never carries the code');
    assert.ok(!JSON.stringify(doc).includes(code.slice(10)), 'nor its secret part');
    const other = await newGiftCardSale({ ...INPUT, message: ' ' }, 'trm_front', NOW, ID);
    assert.ok(other.ok);
    assert.notEqual(other.code, code, 'every sale makes a new code');
    assert.equal('message' in other.doc, false, 'a blank message is left out');
  });

  it('refuses what the server would decline before a card is made', async () => {
    assert.equal(refusal(await newGiftCardSale({ ...INPUT, amountMinor: 0 }, 'trm_front', NOW, ID)), 'amount_required');
    assert.equal(refusal(await newGiftCardSale({ ...INPUT, currency: 'UGX' }, 'trm_front', NOW, ID)), 'currency_not_supported');
    assert.equal(refusal(await newGiftCardSale({ ...INPUT, message: 'x'.repeat(161) }, 'trm_front', NOW, ID)), 'message_too_long');
    assert.equal(refusal(await newGiftCardSale({ ...INPUT, message: `${'x'.repeat(160)}  ` }, 'trm_front', NOW, ID)), 'ok');
  });

  it('sells in the merchant\'s currency when cards exist in it, else offers every gift-card currency', () => {
    assert.deepEqual(giftCardCurrencies('NGN'), ['NGN']);
    assert.deepEqual(giftCardCurrencies('KES'), ['KES']);
    assert.deepEqual(giftCardCurrencies('UGX'), ['USD', 'GHS', 'NGN', 'KES', 'ZAR', 'EUR', 'GBP']);
  });

  it('prints the earliest expiry the card can get: 12 months from the sale, the month\'s last day when shorter', () => {
    assert.equal(printedExpiry('2026-11-24T12:00:00.000Z'), '2027-11-24T12:00:00.000Z');
    assert.equal(printedExpiry('2028-02-29T08:00:00.000Z'), '2029-02-28T08:00:00.000Z');
    assert.equal(printedExpiry('2026-03-31T08:00:00.000Z', 1), '2026-04-30T08:00:00.000Z');
  });

  it('prints the code for the customer, paid in cash, once per sale, activating when the till is online', async () => {
    const attempt = await newGiftCardSale(INPUT, 'trm_front', NOW, ID);
    assert.ok(attempt.ok);
    const request = giftCardSaleReceipt({ doc: attempt.doc, code: attempt.code }, CONTEXT, CONFIG);
    assert.equal(request.jobId, `giftcard-${ID}`);
    assert.deepEqual(request.merchant, { name: 'Mama Put', handle: 'mama_put' });
    assert.equal(request.settings.terminalName, 'Front counter');
    assert.equal(request.settings.footer, 'This card activates when the till is online. See you soon');
    assert.equal(request.settings.language, 'en', 'the host\'s PRINTER_LANGUAGE when the kiosk gives none');
    assert.deepEqual(request.receipt, {
      kind: 'gift-card-sale',
      receiptNumber: ID.slice(0, 12),
      code: attempt.code,
      amountMinor: 500_000,
      currency: 'NGN',
      expiresAt: '2027-11-24T12:00:00.000Z',
      message: 'Happy birthday, Ada!',
      payment: { method: 'cash', amountMinor: 500_000 },
      soldAt: '2026-11-24T12:00:00.000Z',
    });
    // Reprinted after it settled: the card's own expiry, no activation note.
    const settled: GiftCardSaleDoc = { ...attempt.doc, status: 'accepted', cardId: 'gcard_1', expiresAt: '2027-11-25T09:00:00.000Z' };
    const again = giftCardSaleReceipt({ doc: settled, code: attempt.code }, CONTEXT, CONFIG);
    assert.equal(again.settings.footer, 'See you soon');
    assert.equal(again.receipt.kind === 'gift-card-sale' && again.receipt.expiresAt, '2027-11-25T09:00:00.000Z');
    // In the kiosk's language: the receipt's words (hardware lays them out) and the activation note.
    const french = giftCardSaleReceipt({ doc: attempt.doc, code: attempt.code }, CONTEXT, CONFIG, 'fr');
    assert.equal(french.settings.language, 'fr');
    assert.equal(french.settings.footer, 'Cette carte s\'active quand la caisse est en ligne. See you soon');
  });

  it('tells the cashier what became of a sale', async () => {
    const attempt = await newGiftCardSale(INPUT, 'trm_front', NOW, ID);
    assert.ok(attempt.ok);
    assert.equal(giftCardSaleOutcome(attempt.doc), 'Activates when the till is online');
    assert.equal(giftCardSaleOutcome({ ...attempt.doc, status: 'accepted', cardId: 'gcard_abc' }), 'Active - card gcard_abc');
    assert.equal(
      giftCardSaleOutcome({ ...attempt.doc, status: 'declined', declineCode: 'insufficient_funds', declineReason: 'The merchant\'s wallet has less than the card\'s value in NGN' }),
      'Declined: There is not enough money in the wallet. (insufficient_funds)',
    );
    // A code the catalogue does not know keeps the server's words.
    assert.equal(giftCardSaleOutcome({ ...attempt.doc, status: 'declined', declineCode: 'brand_new_rule', declineReason: 'Some new rule' }), 'Declined: Some new rule (brand_new_rule)');
    // In the kiosk's language.
    const french = translator('fr');
    assert.equal(giftCardSaleOutcome(attempt.doc, french), 'S\'active quand la caisse est en ligne');
    assert.equal(giftCardSaleOutcome({ ...attempt.doc, status: 'accepted', cardId: 'gcard_abc' }, french), 'Active - carte gcard_abc');
    assert.equal(giftCardSaleOutcome({ ...attempt.doc, status: 'declined', declineCode: 'insufficient_funds' }, french), 'Refusée : Le portefeuille n\'a pas assez d\'argent. (insufficient_funds)');
  });
});
