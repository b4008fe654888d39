import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { uniqueHandle, useTestServer } from '../testing/server.ts';

const NBSP = '\u00a0';

/** The page's language data block, as browser/page-i18n.ts reads it. */
function scriptData(html: string): { language: string; messages: { web: { offlineQr: { title: string } }; errors: Record<string, string> } } {
  const match = /<script type="application\/json" id="tapline-i18n">([^<]*)<\/script>/.exec(html);
  assert.ok(match, 'the page carries its language data');
  return JSON.parse(match[1] ?? '') as ReturnType<typeof scriptData>;
}

for (const target of await databaseTargets()) {
  describe(`customer pages in the visitor's language on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function get(path: string, headers: Record<string, string> = {}) {
      const response = await fetch(server().baseUrl + path, { headers, redirect: 'manual' });
      return { status: response.status, headers: response.headers, html: await response.text() };
    }

    it('chooses ?lang=, else Accept-Language, else English, and says so in html lang, the words and the script data', async () => {
      const french = await get('/wallet/offline-qr', { 'accept-language': 'fr-SN,fr;q=0.9,en;q=0.5' });
      assert.equal(french.status, 200);
      assert.match(french.html, /<html lang="fr">/);
      assert.match(french.html, /Montant à mettre de côté/);
      assert.match(french.html, /Créer le QR code/);
      assert.doesNotMatch(french.html, /Amount to set aside/);
      assert.equal(french.headers.get('vary'), 'accept-language');
      assert.match(french.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      const data = scriptData(french.html);
      assert.equal(data.language, 'fr');
      assert.equal(data.messages.web.offlineQr.title, 'Payer là où il n\'y a pas de réseau');
      assert.equal(data.messages.errors.wrong_pin, 'Code PIN incorrect.');
      // The page's script (built by Vite from web/src/pages) comes after the data it reads.
      assert.ok(french.html.indexOf('id="tapline-i18n"') < french.html.indexOf('<script type="module" src="/web/pages/offline-qr.js">') && french.html.includes('/web/pages/offline-qr.js'));

      const chosen = await get('/wallet/offline-qr?lang=pt', { 'accept-language': 'fr' });
      assert.match(chosen.html, /<html lang="pt">/);
      assert.match(chosen.html, /Montante a reservar/);
      const english = await get('/wallet/offline-qr');
      assert.match(english.html, /<html lang="en">/);
      assert.match(english.html, /Amount to set aside/);
      const unknown = await get('/wallet/offline-qr?lang=de', { 'accept-language': 'de-DE, sw;q=0.3' });
      assert.match(unknown.html, /<html lang="sw">/, 'an unsupported ?lang= falls back to the header');
      assert.match(unknown.html, /Kiasi cha kutenga/);
    });

    it('offers every language on the page, named in itself, keeping the rest of the query', async () => {
      const s = server();
      const handle = uniqueHandle('ada');
      await s.createWallet({ handle, fund: 10 });
      const page = await get(`/pay/${handle}?source=nfc&lang=fr`);
      assert.equal(page.status, 200);
      assert.match(page.html, /Badgé en NFC/);
      assert.match(page.html, /<nav class="languages" aria-label="Langue">/);
      for (const [code, name] of [['en', 'English'], ['fr', 'Français'], ['pt', 'Português'], ['sw', 'Kiswahili']]) {
        assert.match(page.html, new RegExp(`<a href="/pay/${handle}\\?source=nfc&amp;lang=${code}" hreflang="${code}" lang="${code}"${code === 'fr' ? ' aria-current="true"' : ''}>${name}</a>`));
      }
      assert.match(page.html, new RegExp(`placeholder="0,00"`), 'the amount example in French');
    });

    it('shows a POS session to pay in French: words, the French money format, the countdown element kept', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const created = await s.request<{ tapUrl: string }>('POST', '/api/pos/sessions', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { amount: 1250, currency: 'NGN', description: 'Thiéboudienne' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const page = await get(`${new URL(created.body.tapUrl).pathname}?lang=fr`);
      assert.equal(page.status, 200);
      assert.ok(page.html.includes(`1\u202f250,00${NBSP}NGN`), 'French money: narrow spaces between groups, a comma, the code after');
      assert.ok(page.html.includes(`Payer 1\u202f250,00${NBSP}NGN`));
      assert.match(page.html, /Votre @identifiant/);
      assert.match(page.html, /Payer · mode test/);
      const pos = await get('/pos?lang=fr');
      assert.match(pos.html, /Expire dans <strong id="countdown">90<\/strong> s/);
      assert.match(pos.html, /Encaisser/);
    });

    it('answers unknown tags and handles in the visitor\'s language, and keeps ?lang= through a tag\'s redirect', async () => {
      const s = server();
      const tag = await get('/tap/TG00000000', { 'accept-language': 'fr' });
      assert.equal(tag.status, 404);
      assert.match(tag.html, /Badge inconnu/);
      const handle = await get('/pay/nobody_here_xyz?lang=sw');
      assert.equal(handle.status, 404);
      assert.match(handle.html, /Hakuna pochi @nobody_here_xyz\./);
      const merchant = await s.createMerchant();
      const customer = uniqueHandle('ring');
      await s.createWallet({ handle: customer, fund: 10 });
      const ring = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(ring.status, 201);
      const redirect = await get(`/tap/${ring.body.tagId}?lang=fr`);
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.get('location'), `/pay/${customer}?source=nfc&lang=fr`);
    });

    it('serves the pages\' scripts built by Vite with the shared translator and money format, and nothing outside the build', async () => {
      const script = await get('/web/pages/offline-qr.js');
      assert.equal(script.status, 200);
      assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(script.headers.get('cache-control'), 'no-cache');
      // The shared chunk it imports holds i18next and the one money format (Intl.NumberFormat with currencyDisplay "code").
      const imported = [...script.html.matchAll(/from\s*["']\.\/chunks\/([\w.-]+\.js)["']/g)].map((match) => match[1]);
      assert.ok(imported.length > 0, script.html.slice(0, 300));
      const chunks = await Promise.all(imported.map((name) => get(`/web/pages/chunks/${name}`)));
      assert.ok(chunks.every((chunk) => chunk.status === 200));
      assert.ok(chunks.some((chunk) => chunk.html.includes('currencyDisplay')), 'the money format is bundled');
      assert.equal((await get('/web/style.css')).headers.get('content-type'), 'text/css; charset=utf-8');
      for (const path of ['/web/nothing.js', '/web/%2e%2e/package.json', '/web/pages/../../package.json', '/web/sdk/service.js', '/web/i18n.js']) {
        assert.equal((await get(path)).status, 404, path);
      }
    });
  });
}
