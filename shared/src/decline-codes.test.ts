// The decline codes' registry (decline-codes.ts): each code has a sentence, names the documents it
// declines, and the kiosk can say it in every language (the cashier sees the reason, not a code).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DECLINE_CODES, isDeclineCode } from './decline-codes.ts';
import { ERROR_CODES } from './error-codes.ts';
import { CATALOGUES } from './i18n/index.ts';
import { LANGUAGES } from './i18n/languages.ts';

describe('decline codes', () => {
  it('each has a sentence and the documents it declines, and is snake_case', () => {
    for (const [code, info] of Object.entries(DECLINE_CODES)) {
      assert.match(code, /^[a-z]+(_[a-z]+)+$/, code);
      assert.ok(info.sentence.length > 10, code);
      assert.ok(info.documents.length > 0, code);
    }
    assert.equal(isDeclineCode('offline_payment_too_old'), true);
    assert.equal(isDeclineCode('toString'), false, 'an own key only');
  });

  it('the kiosk has a sentence for each in every language (errors.<code>)', () => {
    const missing: string[] = [];
    for (const language of LANGUAGES) {
      const errors = CATALOGUES[language].errors as Record<string, string>;
      for (const code of Object.keys(DECLINE_CODES)) if (typeof errors[code] !== 'string' || errors[code].trim() === '') missing.push(`${language}: ${code}`);
    }
    assert.deepEqual(missing, []);
  });

  it('the codes that are also API error codes name the same rule there (one name per rule)', () => {
    const shared = Object.keys(DECLINE_CODES).filter((code) => Object.hasOwn(ERROR_CODES, code)).sort();
    assert.deepEqual(shared, [
      'amount_exceeds_voucher', 'currency_not_accepted', 'insufficient_funds', 'invalid_document', 'payer_is_merchant', 'pin_required', 'tag_disabled', 'tag_not_found',
      'tender_claimed', 'voucher_already_used', 'voucher_currency_mismatch', 'voucher_expired', 'voucher_malformed', 'voucher_revoked', 'voucher_signature_invalid',
      'voucher_unknown', 'voucher_wrong_mode',
    ]);
  });
});
