/* Paying without NFC: the page behind a POS session's tapUrl / QR code (data-page="session") and the
 * /pay/<handle> page a wearable's tap redirects to (data-page="handle"). The payer signs in with
 * @handle and PIN (POST /api/wallet/sessions) and pays with that wallet session. The page behind a
 * checkout session's QR code (data-page="checkout") sends handle and PIN with the payment itself
 * (POST /api/checkout/sessions/<id>/pay). Plain browser JavaScript, no build step. */
/* global document */
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const facts = document.body.dataset;
  const form = $('pay-form');
  if (!form) return;

  function formatAmount(amount, currency) {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency, currencyDisplay: 'code' }).format(amount);
    } catch {
      return `${currency} ${amount}`;
    }
  }

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

  function errorText(result) {
    if (result.data && typeof result.data.error === 'string') return result.data.error;
    return `The server answered ${result.status}`;
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
      error.textContent = 'Enter your @handle';
      return;
    }
    if (!/^[0-9]{4,8}$/.test(pin)) {
      error.textContent = 'Your PIN is 4 to 8 digits';
      return;
    }
    let amount;
    if (facts.page === 'handle') {
      const raw = $('amount').value.trim().replace(',', '.');
      amount = Number(raw);
      if (!/^\d+(\.\d+)?$/.test(raw) || !(amount > 0)) {
        error.textContent = 'Enter an amount greater than zero, such as 12.50';
        return;
      }
    }
    button.disabled = true;
    try {
      if (facts.page === 'checkout') {
        const result = await call('POST', `/api/checkout/sessions/${facts.sessionId}/pay`, { method: 'wallet', handle, pin }, { 'idempotency-key': idempotencyKey });
        if (result.status === 200 && result.data.status === 'paid') {
          showResult('completed', 'Paid', `${formatAmount(result.data.amount, result.data.currency)} paid to ${result.data.merchant.name} by ${result.data.payerHandle}.`);
        } else if (result.status === 409 || result.status === 410) {
          showResult(result.status === 410 ? 'expired' : 'failed', result.status === 410 ? 'Expired' : 'Not payable', errorText(result));
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
          showResult('completed', 'Paid', `${formatAmount(result.data.amount, result.data.currency)} paid by ${result.data.payerHandle}. Reference ${result.data.walletRef}.`);
        } else if (result.status === 200) {
          showResult('failed', 'Payment failed', result.data.errorMessage || 'The payment did not go through.');
        } else if (result.status === 409 || result.status === 410) {
          showResult(result.status === 410 ? 'expired' : 'failed', result.status === 410 ? 'Expired' : 'Not payable', errorText(result));
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
          'Paid',
          `${formatAmount(result.data.amount, result.data.currency)} sent to ${result.data.to}. Your balance: ${formatAmount(result.data.balance, result.data.currency)}.`,
        );
      }
    } catch (problem) {
      error.textContent = problem instanceof Error ? problem.message : String(problem);
    } finally {
      button.disabled = false;
    }
  });
})();
