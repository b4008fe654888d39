/**
 * The wallet holder's offline QR page (/wallet/offline-qr): sign in with @handle and PIN, set an
 * amount aside in a signed voucher (POST /api/offline/qr), show it as a QR code for a terminal to
 * scan, and cancel it to get the money back. The wallet token lives in this tab only.
 */
import { isHandle, isPin } from '@tapline/shared/wallet-input';
import { call } from '../lib/api.ts';
import { byId, input, typedAmount } from '../lib/dom.ts';
import { dateTime, errorText, money, t } from '../lib/page-i18n.ts';

interface Voucher {
  id: string;
  status: string;
  amount: number;
  currency: string;
  qrPayload: string;
  expiresAt: string;
}

let token: string | null = null;
let voucherId: string | null = null;
// One key per voucher attempt: a double tap on "Make QR code" reserves once.
let voucherKey = crypto.randomUUID();

/** The answer's body, or throws the error's sentence in the page's language. */
async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer wallet.${token}`;
  if (method === 'POST' && path === '/api/offline/qr') headers['idempotency-key'] = voucherKey;
  const answer = await call<T>(method, path, body, headers);
  if (!answer.ok) throw new Error(errorText(answer));
  return answer.data as T;
}

const message = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure));

byId('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('signin-error');
  error.textContent = '';
  const handle = input('handle').value.trim();
  const pin = input('pin').value.trim();
  if (!isHandle(handle)) return void (error.textContent = t('web.pay.enterHandle'));
  if (!isPin(pin)) return void (error.textContent = t('web.pay.pinDigits'));
  const button = byId<HTMLButtonElement>('signin-button');
  button.disabled = true;
  try {
    const session = await request<{ token: string; handle: string }>('POST', '/api/wallet/sessions', { handle, pin });
    token = session.token;
    sessionStorage.setItem('tapline.wallet.handle', session.handle);
    const balance = await request<{ handle: string; balances: { available: number; currency: string }[] }>('GET', '/api/wallet/balance');
    const main = balance.balances[0];
    byId('signed-in-as').textContent = main ? t('web.offlineQr.available', { handle: balance.handle, amount: money(main.available, main.currency) }) : balance.handle;
    byId('voucher-currency').textContent = main ? main.currency : '';
    byId('signin-card').hidden = true;
    byId('voucher-card').hidden = false;
    input('amount').focus();
  } catch (failure) {
    error.textContent = message(failure);
  } finally {
    button.disabled = false;
  }
});

byId('voucher-form').addEventListener('input', () => {
  voucherKey = crypto.randomUUID();
});

byId('voucher-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('voucher-error');
  error.textContent = '';
  const amount = typedAmount(input('amount').value);
  if (amount === null) return void (error.textContent = t('web.offlineQr.enterAmount'));
  const button = byId<HTMLButtonElement>('voucher-button');
  button.disabled = true;
  try {
    const voucher = await request<Voucher>('POST', '/api/offline/qr', { amount, expiresInHours: Number(byId<HTMLSelectElement>('hours').value) });
    voucherId = voucher.id;
    const svg = await request<string>('GET', `/api/offline/qr/${encodeURIComponent(voucher.id)}/qr.svg`);
    const image = byId<HTMLImageElement>('voucher-qr');
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    image.dataset.payload = voucher.qrPayload;
    byId('voucher-amount').textContent = money(voucher.amount, voucher.currency);
    byId('voucher-expiry').textContent = t('web.offlineQr.validUntil', { date: dateTime(voucher.expiresAt) });
    byId('voucher-form').hidden = true;
    const result = byId('voucher-result');
    result.hidden = false;
    result.dataset.status = voucher.status;
  } catch (failure) {
    error.textContent = message(failure);
  } finally {
    button.disabled = false;
  }
});

byId('voucher-revoke').addEventListener('click', async () => {
  if (!voucherId) return;
  const button = byId<HTMLButtonElement>('voucher-revoke');
  button.disabled = true;
  try {
    const voucher = await request<Voucher>('POST', `/api/offline/qr/${encodeURIComponent(voucherId)}/revoke`);
    byId('voucher-result').dataset.status = voucher.status;
    byId('voucher-qr').hidden = true;
    byId('voucher-status').textContent = t('web.offlineQr.cancelled', { amount: money(voucher.amount, voucher.currency) });
  } catch (failure) {
    byId('voucher-status').textContent = message(failure);
    button.disabled = false;
  }
});
