// Messages for the cashier: sentences, with the code for support apart; never an errno, a path or a raw code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translator } from '@tapline/shared/i18n';
import { ApiError } from './api.ts';
import { cashierMessage, messageForCode, offlineMessageForCode, refusalMessage, unsupportedTagMessage } from './messages.ts';
import { normaliseToken, tokenInputProblem } from './token.ts';

describe('cashier messages', () => {
  it('turns server and network errors into sentences and keeps the code apart', () => {
    assert.deepEqual(cashierMessage(new ApiError('Unknown tag', 'tag_not_found', 404)), { text: 'This ring, band or card is not registered. Ask the customer to pay with the QR code.', code: 'tag_not_found' });
    assert.deepEqual(cashierMessage(new ApiError('The sync server at http://127.0.0.1:3000 cannot be reached (connect ECONNREFUSED 127.0.0.1:3000)', 'sync_server_unreachable', 502)), {
      text: 'The Tapline server cannot be reached right now.',
      code: 'sync_server_unreachable',
    });
    assert.deepEqual(cashierMessage(new ApiError('The server answered HTTP 504', 'http_error', 504)), { text: 'The Tapline server cannot be reached right now.', code: 'http_504' });
    assert.deepEqual(cashierMessage(new ApiError('Malformed terminal token', 'invalid_terminal_token', 401)).code, 'invalid_terminal_token');
    const unknown = cashierMessage(new ApiError('Something internal', 'weird_failure', 422));
    assert.equal(unknown.code, 'weird_failure');
    assert.doesNotMatch(unknown.text, /weird_failure|internal/);
    assert.deepEqual(refusalMessage({ code: 'offline_exposure_limit', reason: 'policy words' }), { text: 'The terminal holds as much in offline payments as it may: connect to sync them first.', code: 'offline_exposure_limit' });
    assert.deepEqual(refusalMessage({ code: 'some_new_refusal', reason: 'The policy says no' }), { text: 'The policy says no', code: 'some_new_refusal' });
  });

  it('speaks the kiosk\'s language when given its translator', () => {
    const french = translator('fr');
    assert.deepEqual(cashierMessage(new ApiError('Wrong PIN', 'wrong_pin', 403), french), { text: 'Code PIN incorrect. Demandez au client de réessayer.', code: 'wrong_pin' });
    assert.equal(refusalMessage({ code: 'pin_required', reason: 'x' }, french).text, french.t('errors.pin_required_offline'));
    assert.notEqual(french.t('errors.pin_required_offline'), translator('en').t('errors.pin_required_offline'));
    // One code online and offline: online the cashier asks for the PIN, offline it cannot be asked.
    assert.equal(cashierMessage(new ApiError('PIN', 'pin_required', 403)).text, 'For this amount the customer must type their PIN.');
    assert.equal(offlineMessageForCode('pin_required'), 'This needs the customer\'s PIN, which cannot be checked offline: it was not charged.');
    assert.equal(offlineMessageForCode('insufficient_funds'), messageForCode('insufficient_funds'));
    assert.equal(tokenInputProblem('', french).text, 'Saisissez ou collez le jeton du terminal.');
  });

  it('says why the reader could not use a tag in the kiosk\'s language, tag kinds included', () => {
    assert.deepEqual(unsupportedTagMessage('iso14443_4'), { text: 'This card or phone is not a Tapline tag. Tap a Tapline sticker, card, ring or band.', code: 'iso14443_4' });
    assert.equal(unsupportedTagMessage('iso14443_4', translator('fr')).text, 'Cette carte ou ce téléphone n\'est pas un badge Tapline. Passez un autocollant, une carte, une bague ou un bracelet Tapline.');
    assert.match(unsupportedTagMessage('iso14443_4', translator('pt')).text, /autocolante, cartão, anel ou pulseira/);
    assert.match(unsupportedTagMessage('iso14443_4', translator('sw')).text, /kibandiko, kadi, pete au mkanda/);
    assert.equal(unsupportedTagMessage('read_failed', translator('fr')).text, 'Le badge n\'a pas pu être lu. Tenez-le immobile sur le lecteur et réessayez.');
    // A reason this kiosk does not know yet: the general sentence, the reason kept for support.
    assert.deepEqual(unsupportedTagMessage('some_new_reason', translator('sw')), { text: 'Hii si pete, mkanda au kadi ya Tapline.', code: 'some_new_reason' });
  });

  it('recognises a pasted merchant key or another credential on the sign-in form', () => {
    assert.equal(normaliseToken(`mk_test_${'a'.repeat(64)}`), null);
    assert.equal(tokenInputProblem(`mk_test_${'a'.repeat(64)}`).code, 'merchant_key_not_a_terminal_token');
    assert.equal(tokenInputProblem('wallet.abc').code, 'not_a_terminal_token');
    assert.equal(tokenInputProblem('term.abc').code, 'terminal_token_malformed');
    assert.equal(normaliseToken(` ${'f'.repeat(64)} `), `term.${'f'.repeat(64)}`);
  });
});
