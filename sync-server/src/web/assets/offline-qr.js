/* The wallet holder's offline QR page (/wallet/offline-qr): sign in with @handle and PIN, set an
 * amount aside in a signed voucher (POST /api/offline/qr), show it as a QR code for a terminal to
 * scan, and cancel it to get the money back. The wallet token lives in this tab only. Plain
 * browser JavaScript, no build step. */
/* global document */
'use strict';

(() => {
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
    if (!response.ok) throw new Error(data && typeof data.error === 'string' ? data.error : `The server answered ${response.status}`);
    return data;
  }

  function formatAmount(amount, currency) {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency, currencyDisplay: 'code' }).format(amount);
    } catch {
      return `${currency} ${amount}`;
    }
  }

  // One key per voucher attempt: a double tap on "Make QR code" reserves once.
  let idempotencyKey = crypto.randomUUID();

  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = $('signin-error');
    error.textContent = '';
    const handle = $('handle').value.trim();
    const pin = $('pin').value.trim();
    if (!/^@?[A-Za-z0-9_.]{3,30}$/.test(handle)) return void (error.textContent = 'Enter your @handle');
    if (!/^[0-9]{4,8}$/.test(pin)) return void (error.textContent = 'Your PIN is 4 to 8 digits');
    $('signin-button').disabled = true;
    try {
      const session = await call('POST', '/api/wallet/sessions', { handle, pin });
      token = session.token;
      sessionStorage.setItem('tapline.wallet.handle', session.handle);
      const balance = await call('GET', '/api/wallet/balance');
      const main = balance.balances[0];
      $('signed-in-as').textContent = `${balance.handle}${main ? ` · ${formatAmount(main.available, main.currency)} available` : ''}`;
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
    if (!Number.isFinite(amount) || amount <= 0) return void (error.textContent = 'Enter an amount');
    $('voucher-button').disabled = true;
    try {
      const voucher = await call('POST', '/api/offline/qr', { amount, expiresInHours: Number($('hours').value) });
      voucherId = voucher.id;
      const svg = await call('GET', `/api/offline/qr/${encodeURIComponent(voucher.id)}/qr.svg`);
      $('voucher-qr').src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
      $('voucher-qr').dataset.payload = voucher.qrPayload;
      $('voucher-amount').textContent = formatAmount(voucher.amount, voucher.currency);
      $('voucher-expiry').textContent = `Valid until ${new Date(voucher.expiresAt).toLocaleString()}. Show it at the till; it pays once.`;
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
      $('voucher-status').textContent = `Cancelled: ${formatAmount(voucher.amount, voucher.currency)} is back in your wallet.`;
    } catch (failure) {
      $('voucher-status').textContent = failure.message;
      $('voucher-revoke').disabled = false;
    }
  });
})();
