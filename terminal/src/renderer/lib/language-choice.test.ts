// The kiosk's language: the cashier's on-screen choice, the terminal's (from its hello), English.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { choiceAfterTerminal, kioskLanguageOf, parseChoice } from './language-choice.ts';

describe('the kiosk\'s language', () => {
  it('is the cashier\'s choice, else the terminal\'s, else English', () => {
    assert.equal(kioskLanguageOf(null, null), 'en');
    assert.equal(kioskLanguageOf(null, 'fr'), 'fr');
    assert.equal(kioskLanguageOf({ language: 'sw', over: 'fr' }, 'fr'), 'sw');
  });

  it('keeps a choice while the terminal\'s language stays, and drops it when the merchant changes it', () => {
    const choice = { language: 'en', over: 'fr' } as const;
    assert.equal(choiceAfterTerminal(choice, 'fr'), choice);
    assert.equal(choiceAfterTerminal(choice, 'pt'), null, 'the merchant\'s new setting wins');
    assert.deepEqual(choiceAfterTerminal({ language: 'pt', over: null }, 'fr'), { language: 'pt', over: 'fr' }, 'a choice made before any hello adopts the first one');
    assert.equal(choiceAfterTerminal(null, 'fr'), null);
    assert.equal(choiceAfterTerminal(choice, null), choice);
  });

  it('reads back only what it wrote', () => {
    assert.deepEqual(parseChoice('{"language":"fr","over":"en"}'), { language: 'fr', over: 'en' });
    assert.deepEqual(parseChoice('{"language":"fr-SN"}'), { language: 'fr', over: null });
    assert.equal(parseChoice('{"language":"de"}'), null);
    assert.equal(parseChoice('not json'), null);
    assert.equal(parseChoice(null), null);
  });
});
