import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATALOGUES, LANGUAGES, type Catalogue, languageFromAcceptLanguage, languageOf, translator } from './index.ts';
import { createTranslator } from './runtime.ts';

/** Every leaf of a catalogue as [dotted key, text]. */
function leaves(catalogue: Catalogue, prefix = ''): Array<[string, string]> {
  return Object.entries(catalogue).flatMap(([key, value]) => (typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : leaves(value, `${prefix}${key}.`)));
}

const NBSP = '\u00a0';
const NNBSP = '\u202f';

describe('i18n', () => {
  it('has every English key in every language, each translated with the same placeholders', () => {
    const english = new Map(leaves(CATALOGUES.en as Catalogue));
    assert.ok(english.size > 250, `${english.size} messages`);
    for (const language of LANGUAGES) {
      const entries = leaves(CATALOGUES[language] as Catalogue);
      assert.deepEqual(entries.map(([key]) => key).sort(), [...english.keys()].sort(), language);
      for (const [key, text] of entries) {
        assert.ok(text.trim().length > 0, `${language} ${key} is empty`);
        const placeholders = (value: string) => [...value.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]).sort();
        assert.deepEqual(placeholders(text), placeholders(english.get(key) ?? ''), `${language} ${key}`);
      }
    }
    // French really is French: no words left in English ("mobile money" is what francophone Africa says).
    const sameInFrench = new Set(['receipt.methods.mobile_money']);
    const untranslated = leaves(CATALOGUES.fr as Catalogue).filter(([key, text]) => text === english.get(key) && !sameInFrench.has(key) && /\p{L}{3,}\s+\p{L}{3,}/u.test(text));
    assert.deepEqual(untranslated, []);
  });

  it('names each concept with one term per language across the kiosk, the dashboard and receipts', () => {
    for (const language of LANGUAGES) {
      const c = CATALOGUES[language];
      // "Sales today": the kiosk's button, its screen, the dashboard's overview.
      assert.equal(c.kiosk.history.title, c.kiosk.sale.salesToday, `${language}: Sales today`);
      assert.equal(c.dashboard.overview.today, c.kiosk.sale.salesToday, `${language}: Sales today on the dashboard`);
      // A tap (the payment method): the history, the X/Z report on screen and printed, the receipt
      // (the stem: Swahili makes the plural at the front, Miguso).
      const tap = { en: 'tap', fr: 'sans contact', pt: 'toque', sw: 'guso' }[language];
      assert.ok(c.kiosk.history.methods.tap.toLowerCase().includes(tap), `${language}: ${c.kiosk.history.methods.tap}`);
      for (const [where, text] of [['kiosk report', c.kiosk.report.walletTap], ['kiosk report offline', c.kiosk.report.offlineTap], ['offline history', c.kiosk.history.methods.offlineTap], ['receipt', c.receipt.methods.nfc_tap], ['receipt offline', c.receipt.methods.offline_tap], ['dashboard report', c.dashboard.reports.methods.walletTap], ['dashboard report offline', c.dashboard.reports.methods.offlineTap]] as const) {
        assert.ok(text.toLowerCase().includes(tap), `${language} ${where} says "${text}", not "${c.kiosk.history.methods.tap}"`);
      }
    }
    // The words that drifted: French "Sans contact", Portuguese "cartão-oferta", Swahili "nje ya mtandao".
    const all = (language: (typeof LANGUAGES)[number]) => leaves(CATALOGUES[language] as Catalogue).map(([, text]) => text).join('\n');
    assert.doesNotMatch(all('fr'), /Badge portefeuille|Badge \(NFC\)|Ventes d'aujourd'hui|Passages de portefeuille/);
    assert.doesNotMatch(all('pt'), /presente/i);
    assert.doesNotMatch(all('sw'), /bila mtandao|Kugusa pochi/);
  });

  it('interpolates values and picks plural forms, a French million included', () => {
    const fr = translator('fr');
    assert.equal(fr.t('kiosk.sale.charge', { amount: fr.money(125000, 'NGN') }), `Encaisser 1${NNBSP}250,00${NBSP}NGN`);
    assert.match(fr.t('kiosk.sale.signOutWarning', { count: 1 }), /^1 vente hors ligne n'est pas/);
    assert.match(fr.t('kiosk.sale.signOutWarning', { count: 3 }), /^3 ventes hors ligne ne sont pas/);
    // Intl.PluralRules('fr') calls 1000000 "many": the "other" text stands in for it.
    assert.match(fr.t('kiosk.sale.signOutWarning', { count: 1_000_000 }), /^1000000 ventes/);
    assert.match(translator('en').t('kiosk.sale.signOutWarning', { count: 2 }), /^2 offline sales have not synced/);
    // Values go in as text: whoever renders escapes them (Svelte, textContent, html``).
    assert.equal(translator('en').t('web.pay.payMerchant', { merchant: '<b>Mama</b>' }), 'Pay <b>Mama</b>');
  });

  it('splits a message around a placeholder for markup that wraps it', () => {
    assert.deepEqual(translator('en').around('kiosk.waiting.expiresIn', 'seconds'), ['Expires in ', ' s']);
    assert.deepEqual(translator('sw').around('kiosk.waiting.expiresIn', 'seconds'), ['Inaisha baada ya sekunde ', '']);
  });

  it('says a code in words when the catalogue knows it, else the given words', () => {
    assert.equal(translator('fr').reason('insufficient_funds', 'Insufficient funds'), 'Le portefeuille n\'a pas assez d\'argent.');
    assert.equal(translator('sw').reason('offline_amount_over_limit', 'x'), 'Kiasi kinazidi kikomo cha malipo moja nje ya mtandao.');
    assert.equal(translator('fr').reason('some_new_code', 'Server words'), 'Server words');
    assert.equal(translator('fr').reason(undefined, 'Server words'), 'Server words');
  });

  it('formats money and dates in the translator\'s language', () => {
    assert.equal(translator('fr').money(150000, 'UGX'), `150${NNBSP}000${NBSP}UGX`);
    assert.equal(translator('pt').amount(5000, 'XOF'), '5.000');
    assert.equal(translator('en').dateTime('2026-03-01T09:05:00Z', 'UTC'), 'Mar 1, 2026, 9:05 AM');
    assert.equal(translator('fr').dateTime('2026-03-01T09:05:00Z', 'UTC'), '1 mars 2026, 09:05');
  });

  it('works from a part of a catalogue, as the pages\' script gets it', () => {
    const partial = createTranslator('fr', { web: CATALOGUES.fr.web, errors: CATALOGUES.fr.errors });
    assert.equal(partial.t('web.pay.paid'), 'Payé');
    assert.equal(partial.reason('wrong_pin', 'Wrong PIN'), 'Code PIN incorrect.');
  });

  it('chooses a language from tags and Accept-Language headers', () => {
    assert.equal(languageOf('fr-SN'), 'fr');
    assert.equal(languageOf('pt_MZ'), 'pt');
    assert.equal(languageOf('de'), null);
    assert.equal(languageOf(undefined), null);
    assert.equal(languageFromAcceptLanguage('fr-CI,fr;q=0.9,en;q=0.8'), 'fr');
    assert.equal(languageFromAcceptLanguage('de-DE,de;q=0.9,sw;q=0.5,en;q=0.4'), 'sw');
    assert.equal(languageFromAcceptLanguage('en;q=0.2, pt-AO;q=0.7'), 'pt');
    assert.equal(languageFromAcceptLanguage('fr;q=0, en'), 'en');
    assert.equal(languageFromAcceptLanguage('de, ja'), null);
    assert.equal(languageFromAcceptLanguage(''), null);
    assert.equal(languageFromAcceptLanguage(undefined), null);
  });
  it('says the dashboard\'s counts in the plural form of each number, in every language', () => {
    const summary = (language: (typeof LANGUAGES)[number], counts: [number, number, number, number]) => {
      const t = translator(language).t;
      return t('dashboard.giftCards.chartSummary', {
        issued: t('dashboard.giftCards.cardsIssued', { count: counts[0] }),
        active: t('dashboard.giftCards.cardsActive', { count: counts[1] }),
        partial: t('dashboard.giftCards.cardsPartial', { count: counts[2] }),
        redeemed: t('dashboard.giftCards.cardsRedeemed', { count: counts[3] }),
      });
    };
    assert.equal(summary('en', [1, 1, 0, 0]), '1 card issued: 1 active, 0 partly redeemed, 0 fully redeemed.');
    assert.equal(summary('en', [3, 2, 1, 0]), '3 cards issued: 2 active, 1 partly redeemed, 0 fully redeemed.');
    assert.equal(summary('fr', [1, 1, 0, 0]), '1 carte émise : 1 active, 0 utilisée en partie, 0 utilisée entièrement.');
    assert.equal(summary('fr', [3, 2, 1, 2]), '3 cartes émises : 2 actives, 1 utilisée en partie, 2 utilisées entièrement.');
    assert.equal(summary('pt', [1, 1, 2, 2]), '1 cartão emitido: 1 ativo, 2 usados em parte, 2 usados por inteiro.');
    assert.equal(summary('sw', [1, 2, 1, 2]), 'Kadi 1 imetolewa: 2 ziko hai, 1 imetumika kwa sehemu, 2 zimetumika zote.');
    const fr = translator('fr').t;
    assert.equal(fr('dashboard.giftCards.imported', { issued: fr('dashboard.giftCards.importedIssued', { count: 1 }), failed: fr('dashboard.giftCards.importedFailed', { count: 2 }) }), '1 émise, 2 refusées.');
    assert.equal(fr('dashboard.overview.chartSummary', { currency: 'XOF', total: '1 000 F CFA', sales: fr('dashboard.overview.salesCount', { count: 1 }) }), 'Ventes par jour en XOF : 1 000 F CFA en 1 vente sur 30 jours.');
    const pt = translator('pt').t;
    assert.equal(pt('dashboard.payroll.counts', { paid: pt('dashboard.payroll.countPaid', { count: 1 }), failed: pt('dashboard.payroll.countFailed', { count: 2 }), pending: pt('dashboard.payroll.countPending', { count: 1 }) }), '1 paga, 2 falhadas, 1 pendente');
    const sw = translator('sw').t;
    assert.equal(sw('dashboard.rewards.issued', { issued: sw('dashboard.rewards.issuedIssued', { count: 1 }), failed: sw('dashboard.rewards.issuedFailed', { count: 3 }), skipped: sw('dashboard.rewards.issuedSkipped', { count: 1 }) }), '1 imetolewa, 3 zimekataliwa, 1 imerukwa.');
  });
});
