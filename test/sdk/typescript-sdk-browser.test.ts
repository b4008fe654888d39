// The TypeScript SDK in Chromium, as built for npm (ES modules from dist/), on a merchant's page
// of another origin: it refuses a secret mk_ key, opens and reads a checkout session with a
// publishable key through the browser's fetch (CORS), and verifies a webhook signature with the
// browser's Web Crypto.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { launchChromium, trackedPage } from '../e2e/browser.ts';
import { installSdk } from './installed-sdk.ts';

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.html': 'text/html; charset=utf-8' };

for (const target of await databaseTargets()) {
  describe(`TypeScript SDK in Chromium on ${target.name}`, () => {
    const server = useTestServer(target);
    let browser: Browser;
    let shop: Server;
    let shopUrl: string;
    let installed: { folder: string; packageFolder: string };
    let pageHtml = '';

    before(async () => {
      installed = await installSdk();
      browser = await launchChromium();
      shop = createServer((request, response) => {
        const path = new URL(request.url ?? '/', 'http://shop').pathname;
        if (path === '/') return void response.writeHead(200, { 'content-type': TYPES['.html']! }).end(pageHtml);
        // The SDK's published files, as a CDN or a bundler would serve them.
        const file = normalize(join(installed.packageFolder, path.replace(/^\/sdk\//, '')));
        if (!path.startsWith('/sdk/') || !file.startsWith(installed.packageFolder)) return void response.writeHead(404).end();
        try {
          response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
        } catch {
          response.writeHead(404).end();
        }
      });
      await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
      // localhost, not 127.0.0.1: another origin than the API's, so every call is cross-origin.
      shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
    });
    after(async () => {
      await browser?.close();
      await new Promise((resolve) => shop?.close(resolve));
      if (installed) rmSync(installed.folder, { recursive: true, force: true });
    });

    it('refuses an mk_ key, opens a checkout session with a publishable key, verifies a signature with Web Crypto', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Ada Fabrics' });
      const created = await s.request<{ key: string }>('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.testKey }, body: {} });
      assert.equal(created.status, 201);
      const body = JSON.stringify({ id: 'evt_1', event: 'payment.completed', paymentId: 'pay_1', timestamp: new Date().toISOString() });
      const signature = createHmac('sha256', merchant.webhookSecret).update(body).digest('hex');
      pageHtml = `<!doctype html><html><head><meta charset="utf-8"><title>Ada Fabrics</title></head><body>
<script type="module">
import { Tapline, verifyWebhook } from '/sdk/dist/index.js';
const results = {};
try {
  new Tapline({ baseUrl: ${JSON.stringify(s.baseUrl)}, apiKey: ${JSON.stringify(merchant.testKey)} });
  results.secretKey = 'accepted';
} catch (error) {
  results.secretKey = error.message;
}
const client = new Tapline({ baseUrl: ${JSON.stringify(s.baseUrl)}, apiKey: ${JSON.stringify(created.body.key)} });
const session = await client.request('post', '/api/checkout/sessions', { body: { amount: 45, currency: 'NGN', reference: 'order-1042' } });
results.session = session;
results.read = await client.request('get', '/api/checkout/sessions/{id}', { params: { id: session.id } });
results.event = await verifyWebhook(${JSON.stringify(body)}, ${JSON.stringify(signature)}, ${JSON.stringify(merchant.webhookSecret)}, { toleranceSeconds: 300 });
results.forged = await verifyWebhook(${JSON.stringify(body)}, ${JSON.stringify('0'.repeat(64))}, ${JSON.stringify(merchant.webhookSecret)}).then(() => 'accepted', (error) => error.code);
window.results = results;
</script></body></html>`;
      const pageErrors: string[] = [];
      const page = await trackedPage(browser, {}, pageErrors);
      await page.goto(shopUrl);
      await page.waitForFunction(() => (globalThis as unknown as { results?: unknown }).results !== undefined, undefined, { timeout: 60_000 });
      const results = (await page.evaluate(() => (globalThis as unknown as { results: unknown }).results)) as {
        secretKey: string;
        session: { id: string; status: string; amount: number; mode: string };
        read: { id: string; status: string };
        event: { paymentId: string };
        forged: string;
      };
      assert.match(results.secretKey, /never be used in a browser/);
      assert.equal(results.session.status, 'open');
      assert.equal(results.session.amount, 45);
      assert.equal(results.session.mode, 'test');
      assert.equal(results.read.id, results.session.id);
      assert.equal(results.event.paymentId, 'pay_1');
      assert.equal(results.forged, 'signature_invalid');
      assert.deepEqual(pageErrors, []);
      await page.context().close();
    });
  });
}
