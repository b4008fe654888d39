/* Paying without NFC: the page behind a POS session's tapUrl / QR code (data-page="session") and the
 * /pay/<handle> page a wearable's tap redirects to (data-page="handle"). The payer signs in with
 * @handle and PIN (POST /api/wallet/sessions) and pays with that wallet session. The page behind a
 * checkout session's QR code (data-page="checkout") sends handle and PIN with the payment itself
 * (POST /api/checkout/sessions/<id>/pay). Plain browser JavaScript, no build step. */
/* global document, window */
'use strict';

(() => {
  // The page's language and its sentences: /web/i18n.js, loaded first (page-script.ts).
  const { t, reason, money, example } = window.TaplineI18n;
  const $ = (id) => document.getElementById(id);
  const facts = document.body.dataset;
  const form = $('pay-form');
  if (!form) return;

  async function call(method, path, body, headers) {
    const response = await fetch(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    return { status: response.status, data };
  }

  /** The error's code in the page's language, else the server's own words. */
  function errorText(result) {
    const data = result.data || {};
    return reason(data.code, typeof data.error === 'string' ? data.error : t('web.pay.serverAnswered', { status: result.status }));
  }

  /** Signs in (the token lives for this tab only) and returns the wallet token, or throws a message. */
  async function signIn(handle, pin) {
    const body = { handle, pin };
    if (facts.mode) body.mode = facts.mode;
    const result = await call('POST', '/api/wallet/sessions', body);
    if (result.status !== 201) throw new Error(errorText(result));
    sessionStorage.setItem('tapline.wallet.handle', result.data.handle);
    return result.data.token;
  }

  function showResult(status, title, message) {
    form.hidden = true;
    const box = $('pay-result');
    box.hidden = false;
    box.dataset.status = status;
    $('result-icon').className = `result-icon ${status}`;
    $('result-title').textContent = title;
    $('result-message').textContent = message;
  }

  // One key per attempt at this form: a double submit or a retry after a network error cannot pay twice.
  let idempotencyKey = crypto.randomUUID();
  form.addEventListener('input', () => {
    idempotencyKey = crypto.randomUUID();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = $('pay-button');
    const error = $('pay-error');
    error.textContent = '';
    const handle = $('handle').value.trim();
    const pin = $('pin').value.trim();
    if (!/^@?[A-Za-z0-9_.]{3,30}$/.test(handle)) {
      error.textContent = t('web.pay.enterHandle');
      return;
    }
    if (!/^[0-9]{4,8}$/.test(pin)) {
      error.textContent = t('web.pay.pinDigits');
      return;
    }
    let amount;
    if (facts.page === 'handle') {
      const raw = $('amount').value.trim().replace(',', '.');
      amount = Number(raw);
      if (!/^\d+(\.\d+)?$/.test(raw) || !(amount > 0)) {
        error.textContent = t('web.pay.enterAmount', { example: example(facts.currency) });
        return;
      }
    }
    button.disabled = true;
    try {
      if (facts.page === 'checkout') {
        const result = await call('POST', `/api/checkout/sessions/${facts.sessionId}/pay`, { method: 'wallet', handle, pin }, { 'idempotency-key': idempotencyKey });
        if (result.status === 200 && result.data.status === 'paid') {
          showResult('completed', t('web.pay.paid'), t('web.pay.paidToBy', { amount: money(result.data.amount, result.data.currency), merchant: result.data.merchant.name, payer: result.data.payerHandle }));
        } else if (result.status === 409 || result.status === 410) {
          showResult(result.status === 410 ? 'expired' : 'failed', t(result.status === 410 ? 'web.pay.expired' : 'web.pay.notPayable'), errorText(result));
        } else {
          throw new Error(errorText(result));
        }
        return;
      }
      const token = await signIn(handle, pin);
      const headers = { authorization: `Bearer wallet.${token}`, 'idempotency-key': idempotencyKey };
      if (facts.page === 'session') {
        const result = await call('POST', `/api/pos/sessions/${facts.sessionId}/pay`, {}, headers);
        if (result.status === 200 && result.data.status === 'completed') {
          showResult('completed', t('web.pay.paid'), t('web.pay.paidByRef', { amount: money(result.data.amount, result.data.currency), payer: result.data.payerHandle, reference: result.data.walletRef }));
        } else if (result.status === 200) {
          showResult('failed', t('web.pay.failed'), result.data.errorMessage || t('web.pay.failedText'));
        } else if (result.status === 409 || result.status === 410) {
          showResult(result.status === 410 ? 'expired' : 'failed', t(result.status === 410 ? 'web.pay.expired' : 'web.pay.notPayable'), errorText(result));
        } else {
          throw new Error(errorText(result));
        }
      } else {
        const body = { to: facts.to, amount, currency: facts.currency };
        const note = $('note').value.trim();
        if (note) body.note = note;
        const result = await call('POST', '/api/wallet/pay', body, headers);
        if (result.status !== 201) throw new Error(errorText(result));
        showResult(
          'completed',
          t('web.pay.paid'),
          t('web.pay.sentTo', { amount: money(result.data.amount, result.data.currency), to: result.data.to, balance: money(result.data.balance, result.data.currency) }),
        );
      }
    } catch (problem) {
      error.textContent = problem instanceof Error ? problem.message : String(problem);
    } finally {
      button.disabled = false;
    }
  });
})();
