/* The wallet holder's offline QR page (/wallet/offline-qr): sign in with @handle and PIN, set an
 * amount aside in a signed voucher (POST /api/offline/qr), show it as a QR code for a terminal to
 * scan, and cancel it to get the money back. The wallet token lives in this tab only. Plain
 * browser JavaScript, no build step. */
/* global document, window */
'use strict';

(() => {
  // The page's language and its sentences: /web/i18n.js, loaded first (page-script.ts).
  const { t, reason, money, dateTime } = window.TaplineI18n;
  const $ = (id) => document.getElementById(id);
  let token = null;
  let voucherId = null;

  async function call(method, path, body) {
    const headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer wallet.${token}`;
    if (method === 'POST' && path === '/api/offline/qr') headers['idempotency-key'] = idempotencyKey;
    const response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = text;
    }
    if (!response.ok) {
      const words = data && typeof data.error === 'string' ? data.error : t('web.pay.serverAnswered', { status: response.status });
      throw new Error(reason(data && data.code, words));
    }
    return data;
  }

  // One key per voucher attempt: a double tap on "Make QR code" reserves once.
  let idempotencyKey = crypto.randomUUID();

  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = $('signin-error');
    error.textContent = '';
    const handle = $('handle').value.trim();
    const pin = $('pin').value.trim();
    if (!/^@?[A-Za-z0-9_.]{3,30}$/.test(handle)) return void (error.textContent = t('web.pay.enterHandle'));
    if (!/^[0-9]{4,8}$/.test(pin)) return void (error.textContent = t('web.pay.pinDigits'));
    $('signin-button').disabled = true;
    try {
      const session = await call('POST', '/api/wallet/sessions', { handle, pin });
      token = session.token;
      sessionStorage.setItem('tapline.wallet.handle', session.handle);
      const balance = await call('GET', '/api/wallet/balance');
      const main = balance.balances[0];
      $('signed-in-as').textContent = main ? t('web.offlineQr.available', { handle: balance.handle, amount: money(main.available, main.currency) }) : balance.handle;
      $('voucher-currency').textContent = main ? main.currency : '';
      $('signin-card').hidden = true;
      $('voucher-card').hidden = false;
      $('amount').focus();
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      $('signin-button').disabled = false;
    }
  });

  $('voucher-form').addEventListener('input', () => {
    idempotencyKey = crypto.randomUUID();
  });

  $('voucher-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = $('voucher-error');
    error.textContent = '';
    const amount = Number($('amount').value.trim().replace(',', '.'));
    if (!Number.isFinite(amount) || amount <= 0) return void (error.textContent = t('web.offlineQr.enterAmount'));
    $('voucher-button').disabled = true;
    try {
      const voucher = await call('POST', '/api/offline/qr', { amount, expiresInHours: Number($('hours').value) });
      voucherId = voucher.id;
      const svg = await call('GET', `/api/offline/qr/${encodeURIComponent(voucher.id)}/qr.svg`);
      $('voucher-qr').src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
      $('voucher-qr').dataset.payload = voucher.qrPayload;
      $('voucher-amount').textContent = money(voucher.amount, voucher.currency);
      $('voucher-expiry').textContent = t('web.offlineQr.validUntil', { date: dateTime(voucher.expiresAt) });
      $('voucher-form').hidden = true;
      $('voucher-result').hidden = false;
      $('voucher-result').dataset.status = voucher.status;
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      $('voucher-button').disabled = false;
    }
  });

  $('voucher-revoke').addEventListener('click', async () => {
    if (!voucherId) return;
    $('voucher-revoke').disabled = true;
    try {
      const voucher = await call('POST', `/api/offline/qr/${encodeURIComponent(voucherId)}/revoke`);
      $('voucher-result').dataset.status = voucher.status;
      $('voucher-qr').hidden = true;
      $('voucher-status').textContent = t('web.offlineQr.cancelled', { amount: money(voucher.amount, voucher.currency) });
    } catch (failure) {
      $('voucher-status').textContent = failure.message;
      $('voucher-revoke').disabled = false;
    }
  });
})();
