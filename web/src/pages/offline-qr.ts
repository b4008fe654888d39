/**
 * The wallet holder's offline QR page (/wallet/offline-qr): sign in with @handle and PIN, set an
 * amount aside in a signed voucher (POST /api/offline/qr), show it as a QR code for a terminal to
 * scan, and cancel it to get the money back. The page lists the holder's active vouchers
 * (GET /api/offline/qr?status=active), each shown again (GET /api/offline/qr/<id>) or cancelled,
 * with what they hold in total; the balance is read again after each change.
 *
 * The wallet session is the tab's (lib/wallet-session.ts), shared with the wallet page (/wallet):
 * a reload stays signed in until it expires; signing out ends it on the server and forgets it.
 */
import type { Answer, Method, Parts, Route } from '@tapline/shared/api';
import { formatMoney, minorFromMajor } from '@tapline/shared/money';
import { byId, input, typedAmount } from '../lib/dom.ts';
import { dateTime, language, money, t } from '../lib/page-i18n.ts';
import { RequestError, type WalletSession, endWalletSession, failureText, forgetWalletSession, handleSignIn, resumeWalletSession, walletRequest } from '../lib/wallet-session.ts';

/** A voucher as the server answers it (GET /api/offline/qr/{id}; making and cancelling one answer the same record). */
type Voucher = Answer<'GET', '/api/offline/qr/{id}'>;

/** Vouchers read per request while listing the active ones. */
const PAGE_SIZE = 100;

let session: WalletSession | null = null;
/** The voucher shown in #voucher-result, if any. */
let shownId: string | null = null;
// One key per voucher attempt: a double tap on "Make QR code" reserves once.
let voucherKey = crypto.randomUUID();

/** The answer's body, or throws the error's sentence in the page's language (a 401 ends the session). */
function request<M extends Method, P extends Route<M>>(method: M, path: P, parts: Omit<Parts<M, P>, 'headers'> = {} as Omit<Parts<M, P>, 'headers'>): Promise<Answer<M, P>> {
  return walletRequest(session, method, path, {
    ...parts,
    ...(method === 'POST' && path === '/api/offline/qr' ? { idempotencyKey: voucherKey } : {}),
    onSignedOut: () => endSession(t('web.offlineQr.sessionEnded')),
  });
}

const message = failureText;

/** Back to the sign-in form, the session forgotten (why: shown under the form). */
function endSession(why = ''): void {
  session = null;
  shownId = null;
  forgetWalletSession();
  input('pin').value = '';
  byId('signin-error').textContent = why;
  byId('voucher-card').hidden = true;
  byId('vouchers-card').hidden = true;
  byId('signin-card').hidden = false;
  showForm();
}

// ------------------------------------------------------------------ balance and vouchers

async function refreshBalance(): Promise<void> {
  const balance = await request('GET', '/api/wallet/balance');
  const main = balance.balances[0];
  byId('signed-in-as').textContent = main ? t('web.offlineQr.available', { handle: balance.handle, amount: money(main.available, main.currency) }) : balance.handle;
  byId('voucher-currency').textContent = main ? main.currency : '';
  byId('voucher-card').dataset.currency = main?.currency ?? '';
}

async function activeVouchers(): Promise<Voucher[]> {
  const all: Voucher[] = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const page = await request('GET', '/api/offline/qr', { query: { status: 'active', limit: PAGE_SIZE, offset } });
    all.push(...page.data);
    if (page.data.length < PAGE_SIZE || all.length >= page.total) return all;
  }
}

/** What the vouchers hold, per currency ("NGN 40.00", or "NGN 40.00 + USD 5.00"); zero in the wallet's currency when none. */
function reservedText(vouchers: Voucher[]): string {
  const totals = new Map<string, number>();
  for (const voucher of vouchers) totals.set(voucher.currency, (totals.get(voucher.currency) ?? 0) + minorFromMajor(voucher.amount, voucher.currency));
  if (totals.size === 0) {
    const currency = byId('voucher-card').dataset.currency;
    return currency ? money(0, currency) : '0';
  }
  return [...totals].map(([currency, minor]) => formatMoney(minor, currency, language)).join(' + ');
}

function button(label: string, classes: string[], onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.classList.add(...classes);
  element.textContent = label;
  element.addEventListener('click', onClick);
  return element;
}

function voucherItem(voucher: Voucher): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset.voucherId = voucher.id;
  const expired = Date.parse(voucher.expiresAt) <= Date.now();
  item.dataset.expired = String(expired);
  const text = document.createElement('div');
  const amount = document.createElement('strong');
  amount.className = 'voucher-amount';
  amount.textContent = money(voucher.amount, voucher.currency);
  const when = document.createElement('span');
  when.classList.add('voucher-expiry', 'muted');
  when.textContent = expired ? t('web.offlineQr.expiredReturns', { date: dateTime(voucher.expiresAt) }) : t('web.offlineQr.validUntilShort', { date: dateTime(voucher.expiresAt) });
  text.append(amount, when);
  const actions = document.createElement('div');
  actions.className = 'voucher-actions';
  if (!expired) actions.append(button(t('web.offlineQr.show'), ['secondary', 'voucher-show'], () => void show(voucher.id)));
  actions.append(button(t('web.offlineQr.cancel'), ['secondary', 'voucher-cancel'], () => void cancel(voucher.id)));
  item.append(text, actions);
  return item;
}

async function refreshVouchers(): Promise<void> {
  const vouchers = await activeVouchers();
  byId('reserved').textContent = t('web.offlineQr.reserved', { amount: reservedText(vouchers) });
  byId('reserved').dataset.count = String(vouchers.length);
  byId('vouchers').replaceChildren(...vouchers.map(voucherItem));
  byId('vouchers-empty').hidden = vouchers.length > 0;
  byId('vouchers-card').hidden = false;
}

/** Balance and vouchers again, after any change; a failure is shown, not thrown. */
async function refresh(): Promise<void> {
  byId('vouchers-error').textContent = '';
  try {
    await Promise.all([refreshBalance(), refreshVouchers()]);
  } catch (failure) {
    if (session) byId('vouchers-error').textContent = message(failure);
  }
}

// ------------------------------------------------------------------ one voucher shown

function showForm(): void {
  shownId = null;
  byId('voucher-result').hidden = true;
  byId('voucher-form').hidden = false;
  input('amount').value = '';
}

async function display(voucher: Voucher): Promise<void> {
  const svg = await request('GET', '/api/offline/qr/{id}/qr.svg', { params: { id: voucher.id } });
  shownId = voucher.id;
  const image = byId<HTMLImageElement>('voucher-qr');
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  image.dataset.payload = voucher.qrPayload ?? '';
  image.hidden = false;
  byId('voucher-amount').textContent = money(voucher.amount, voucher.currency);
  byId('voucher-expiry').textContent = t('web.offlineQr.validUntil', { date: dateTime(voucher.expiresAt) });
  byId('voucher-status').textContent = '';
  byId<HTMLButtonElement>('voucher-revoke').disabled = false;
  byId<HTMLButtonElement>('voucher-revoke').hidden = false;
  byId('voucher-form').hidden = true;
  const result = byId('voucher-result');
  result.hidden = false;
  result.dataset.status = voucher.status;
  result.dataset.voucherId = voucher.id;
}

/** Shows an active voucher again: the server signs the same text again (Ed25519 is deterministic). */
async function show(id: string): Promise<void> {
  byId('vouchers-error').textContent = '';
  try {
    const voucher = await request('GET', '/api/offline/qr/{id}', { params: { id } });
    if (voucher.status !== 'active' || !voucher.qrPayload) {
      await refresh();
      return;
    }
    await display(voucher);
    byId('voucher-card').scrollIntoView({ block: 'start' });
  } catch (failure) {
    byId('vouchers-error').textContent = message(failure);
  }
}

/** Cancels a voucher: its money goes back to the wallet at once. */
async function cancel(id: string): Promise<void> {
  byId('vouchers-error').textContent = '';
  try {
    const voucher = await request('POST', '/api/offline/qr/{id}/revoke', { params: { id } });
    if (shownId === id) showCancelled(voucher);
  } catch (failure) {
    byId('vouchers-error').textContent = message(failure);
  }
  await refresh();
}

function showCancelled(voucher: Voucher): void {
  byId('voucher-result').dataset.status = voucher.status;
  byId('voucher-qr').hidden = true;
  byId('voucher-qr').dataset.payload = '';
  byId<HTMLButtonElement>('voucher-revoke').hidden = true;
  byId('voucher-status').textContent = t('web.offlineQr.cancelled', { amount: money(voucher.amount, voucher.currency) });
}

// ------------------------------------------------------------------ sign in and out

/** The signed-in view: balance, form, vouchers. False when the session no longer works. */
async function enter(): Promise<boolean> {
  try {
    await refreshBalance();
  } catch (failure) {
    if (failure instanceof RequestError && failure.status === 401) return false;
    throw failure;
  }
  byId('signin-card').hidden = true;
  byId('voucher-card').hidden = false;
  showForm();
  await refresh();
  return true;
}

handleSignIn(async (created) => {
  session = created;
  await enter();
  input('amount').focus();
});

byId('signout').addEventListener('click', async () => {
  const token = session?.token;
  endSession();
  // The server forgets the token too; the page has already forgotten it whatever the answer.
  if (token) await endWalletSession(token);
});

// ------------------------------------------------------------------ make, show, cancel

byId('voucher-form').addEventListener('input', () => {
  voucherKey = crypto.randomUUID();
});

byId('voucher-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('voucher-error');
  error.textContent = '';
  const amount = typedAmount(input('amount').value);
  if (amount === null) return void (error.textContent = t('web.offlineQr.enterAmount'));
  const makeButton = byId<HTMLButtonElement>('voucher-button');
  makeButton.disabled = true;
  try {
    const voucher = await request('POST', '/api/offline/qr', { body: { amount, expiresInHours: Number(byId<HTMLSelectElement>('hours').value) } });
    voucherKey = crypto.randomUUID();
    await display(voucher);
  } catch (failure) {
    error.textContent = message(failure);
  } finally {
    makeButton.disabled = false;
  }
  await refresh();
});

byId('voucher-revoke').addEventListener('click', async () => {
  if (!shownId) return;
  const revokeButton = byId<HTMLButtonElement>('voucher-revoke');
  revokeButton.disabled = true;
  try {
    showCancelled(await request('POST', '/api/offline/qr/{id}/revoke', { params: { id: shownId } }));
  } catch (failure) {
    byId('voucher-status').textContent = message(failure);
    revokeButton.disabled = false;
  }
  await refresh();
});

byId('voucher-new').addEventListener('click', () => {
  showForm();
  input('amount').focus();
});

// ------------------------------------------------------------------ start

// A reload stays signed in while the tab's session works.
resumeWalletSession((resumed) => (session = resumed), enter, () => endSession(t('web.offlineQr.sessionEnded')));
