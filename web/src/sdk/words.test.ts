import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { chooseLanguage } from './words.ts';

describe('the drop-in\'s language', () => {
  // The buyer's browser, as the drop-in sees it; Node 20 has no navigator of its own.
  const own = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', { value: { language: 'pt-BR' }, configurable: true });
  after(() => {
    if (own) Object.defineProperty(globalThis, 'navigator', own);
    else Reflect.deleteProperty(globalThis, 'navigator');
  });

  it('takes the locale option when it names a language the drop-in speaks', () => {
    assert.equal(chooseLanguage('fr'), 'fr');
    assert.equal(chooseLanguage('fr-CI'), 'fr');
    assert.equal(chooseLanguage('sw-KE'), 'sw');
  });

  it('falls back to the browser\'s language for a locale that is not a string or not one it speaks, never failing', () => {
    for (const locale of [42, {}, ['fr'], null, undefined, true, '', 'xx', 'de-DE']) {
      assert.equal(chooseLanguage(locale), 'pt', JSON.stringify(locale) ?? String(locale));
    }
  });

  it('speaks English when neither the option nor the browser names a language it speaks', () => {
    Object.defineProperty(globalThis, 'navigator', { value: { language: 'de-DE' }, configurable: true });
    assert.equal(chooseLanguage(7), 'en');
    Object.defineProperty(globalThis, 'navigator', { value: undefined, configurable: true });
    assert.equal(chooseLanguage(undefined), 'en');
  });
});
