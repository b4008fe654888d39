/**
 * Paying without NFC: the page behind a POS session's tapUrl / QR code (data-page="session") and
 * the /pay/<handle> page a wearable's tap redirects to (data-page="handle"). The payer signs in
 * with @handle and PIN (POST /api/wallet/sessions) and pays with that wallet session. The page
 * behind a checkout session's QR code (data-page="checkout") sends handle and PIN with the
 * payment itself (POST /api/checkout/sessions/<id>/pay).
 */
import { isHandle, isPin } from '@tapline/shared/wallet-input';
import { type Reply, call } from '../lib/api.ts';
import { byId, facts, input, typedAmount } from '../lib/dom.ts';
import { errorText, example, money, t } from '../lib/page-i18n.ts';


const page = facts();
const form = document.getElementById('pay-form');

/** Signs in (the token lives for this tab only) and returns the wallet token, or throws a message. */
async function signIn(handle: string, pin: string): Promise<string> {
  const answer = await call('POST', '/api/wallet/sessions', { body: { handle, pin, ...(page.mode === 'test' || page.mode === 'live' ? { mode: page.mode } : {}) } });
  if (answer.status !== 201 || !answer.data) throw new Error(errorText(answer));
  sessionStorage.setItem('tapline.wallet.handle', answer.data.handle);
  return answer.data.token;
}

function showResult(status: string, title: string, message: string): void {
  form!.hidden = true;
  const box = byId('pay-result');
  box.hidden = false;
  box.dataset.status = status;
  byId('result-icon').className = `result-icon ${status}`;
  byId('result-title').textContent = title;
  byId('result-message').textContent = message;
}

/** 409 (no longer payable) and 410 (expired) end the page; anything else is an error to show. */
function showRefusal(answer: Reply<unknown>): boolean {
  if (answer.status !== 409 && answer.status !== 410) return false;
  showResult(answer.status === 410 ? 'expired' : 'failed', t(answer.status === 410 ? 'web.pay.expired' : 'web.pay.notPayable'), errorText(answer));
  return true;
}

async function payCheckout(handle: string, pin: string, key: string): Promise<void> {
  const answer = await call('POST', '/api/checkout/sessions/{id}/pay', { params: { id: page.sessionId ?? '' }, body: { method: 'wallet', handle, pin }, headers: { 'idempotency-key': key } });
  const paid = answer.data;
  if (answer.status === 200 && paid?.status === 'paid') {
    showResult('completed', t('web.pay.paid'), t('web.pay.paidToBy', { amount: money(paid.amount, paid.currency), merchant: paid.merchant?.name ?? '', payer: paid.payerHandle ?? '' }));
  } else if (!showRefusal(answer)) {
    throw new Error(errorText(answer));
  }
}

async function paySession(headers: Record<string, string>): Promise<void> {
  const answer = await call('POST', '/api/pos/sessions/{sessionId}/pay', { params: { sessionId: page.sessionId ?? '' }, body: {}, headers });
  const paid = answer.data;
  if (answer.status === 200 && paid?.status === 'completed') {
    showResult('completed', t('web.pay.paid'), t('web.pay.paidByRef', { amount: money(paid.amount, paid.currency), payer: paid.payerHandle ?? '', reference: paid.walletRef ?? '' }));
  } else if (answer.status === 200) {
    showResult('failed', t('web.pay.failed'), paid?.errorMessage || t('web.pay.failedText'));
  } else if (!showRefusal(answer)) {
    throw new Error(errorText(answer));
  }
}

async function payHandle(amount: number, headers: Record<string, string>): Promise<void> {
  const note = input('note').value.trim();
  const body = { to: page.to ?? '', amount, currency: page.currency ?? '', ...(note ? { note } : {}) };
  const answer = await call('POST', '/api/wallet/pay', { body, headers });
  const paid = answer.data;
  if (answer.status !== 201 || !paid) throw new Error(errorText(answer));
  showResult('completed', t('web.pay.paid'), t('web.pay.sentTo', { amount: money(paid.amount, paid.currency), to: paid.to ?? '', balance: money(paid.balance ?? 0, paid.currency) }));
}

if (form) {
  // One key per attempt at this form: a double submit or a retry after a network error cannot pay twice.
  let key = crypto.randomUUID();
  form.addEventListener('input', () => {
    key = crypto.randomUUID();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = byId<HTMLButtonElement>('pay-button');
    const error = byId('pay-error');
    error.textContent = '';
    const handle = input('handle').value.trim();
    const pin = input('pin').value.trim();
    if (!isHandle(handle)) return void (error.textContent = t('web.pay.enterHandle'));
    if (!isPin(pin)) return void (error.textContent = t('web.pay.pinDigits'));
    let amount: number | null = null;
    if (page.page === 'handle') {
      amount = typedAmount(input('amount').value);
      if (amount === null) return void (error.textContent = t('web.pay.enterAmount', { example: example(page.currency ?? '') }));
    }
    button.disabled = true;
    try {
      if (page.page === 'checkout') return await payCheckout(handle, pin, key);
      const token = await signIn(handle, pin);
      const headers = { authorization: `Bearer wallet.${token}`, 'idempotency-key': key };
      if (page.page === 'session') await paySession(headers);
      else await payHandle(amount!, headers);
    } catch (problem) {
      error.textContent = problem instanceof Error ? problem.message : String(problem);
    } finally {
      button.disabled = false;
    }
  });
}
