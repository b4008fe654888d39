/**
 * The wallet holder's page (/wallet, docs/wallet-money.md): sign in with @handle and PIN, see the
 * balance, add money from a mobile money number (a top-up: her phone is asked to approve) or by a
 * bank transfer to her own virtual account number (shown with its fee before she sends anything), send
 * money out to a mobile money number, a bank account or a saved destination (a withdrawal,
 * confirmed with her PIN), and the recent top-ups and withdrawals.
 *
 * Fees and limits are quoted before anything is asked (GET .../quote). Each top-up or withdrawal
 * attempt has its own Idempotency-Key, kept until the form changes, so a double tap or a retry
 * after a lost answer asks the phone or pays out once. After a submit the page follows the
 * top-up or withdrawal until it ends, and reads the balance and the list again.
 */
import { isPin } from '@tapline/shared/wallet-input';
import { byId, input, typedAmount } from '../lib/dom.ts';
import { dateTime, money, t } from '../lib/page-i18n.ts';
import type { Answer, Body, Method, Parts, Route } from '@tapline/shared/api';
import { RequestError, type WalletSession, endWalletSession, failureText, forgetWalletSession, handleSignIn, resumeWalletSession, walletRequest } from '../lib/wallet-session.ts';

/** A top-up and a withdrawal as the server answers them. */
type TopUp = Answer<'GET', '/api/wallet/top-ups/{id}'>;
type Withdrawal = Answer<'GET', '/api/wallet/withdrawals/{id}'>;
type BankTransfer = Answer<'GET', '/api/wallet/bank-transfers'>['data'][number];
type VirtualAccount = Answer<'GET', '/api/wallet/virtual-accounts'>['data'][number];

/** How often a top-up or withdrawal under way is read again. */
const FOLLOW_MS = 2_000;
/** Quotes wait for the typing to pause. */
const QUOTE_DELAY_MS = 300;
const HISTORY_SIZE = 10;
const TOP_UP_REASONS = new Set(['declined', 'insufficient_funds', 'invalid_phone', 'provider_error']);

let session: WalletSession | null = null;
let currency = '';
let topUpKey = crypto.randomUUID();
let withdrawalKey = crypto.randomUUID();
/** Timers of what is followed; cleared on sign-out. */
const timers = new Set<ReturnType<typeof setTimeout>>();

function later(ms: number, run: () => void): void {
  const timer = setTimeout(() => {
    timers.delete(timer);
    run();
  }, ms);
  timers.add(timer);
}

function request<M extends Method, P extends Route<M>>(
  method: M,
  path: P,
  parts: Omit<Parts<M, P>, 'headers'> & { idempotencyKey?: string } = {} as Omit<Parts<M, P>, 'headers'>,
): Promise<Answer<M, P>> {
  return walletRequest(session, method, path, { ...parts, onSignedOut: () => signOut(t('web.offlineQr.sessionEnded')) });
}

// ------------------------------------------------------------------ signed in, signed out

const SIGNED_IN_CARDS = ['balance-card', 'topup-card', 'bank-card', 'withdraw-card', 'history-card'];

function signOut(why = ''): void {
  const token = session?.token;
  session = null;
  forgetWalletSession();
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  for (const id of SIGNED_IN_CARDS) byId(id).hidden = true;
  input('pin').value = '';
  input('withdraw-pin').value = '';
  closeBvn();
  byId('signin-error').textContent = why;
  byId('signin-card').hidden = false;
  if (token && why === '') void endWalletSession(token);
}

async function refreshBalance(): Promise<void> {
  const balance = await request('GET', '/api/wallet/balance');
  const main = balance.balances[0];
  currency = main?.currency ?? currency;
  byId('signed-in-as').textContent = balance.handle;
  byId('balance').textContent = main ? money(main.available, main.currency) : '';
  for (const element of document.querySelectorAll<HTMLElement>('[data-currency]')) element.textContent = currency;
}

/** Her saved Pay Identity destinations in the wallet's currency, offered in "Send to". */
async function refreshDestinations(): Promise<void> {
  const identity = await request('GET', '/api/wallet/destinations');
  currency = identity.currency || currency;
  const select = byId<HTMLSelectElement>('withdraw-to');
  for (const option of [...select.options]) if (option.value.startsWith('saved:')) option.remove();
  identity.destinations.forEach((destination, index) => {
    if (destination.currency !== identity.currency) return;
    const option = document.createElement('option');
    option.value = `saved:${index}`;
    const where = destination.type === 'mobile_wallet' ? destination.phone ?? '' : t('web.wallet.bankAccount', { account: destination.accountNumber ?? '' });
    option.textContent = t('web.wallet.toSaved', { name: `${destination.provider} ${where}`.trim() });
    select.append(option);
  });
}

async function enter(): Promise<boolean> {
  try {
    await refreshBalance();
  } catch (failure) {
    if (failure instanceof RequestError && failure.status === 401) return false;
    throw failure;
  }
  byId('signin-card').hidden = true;
  for (const id of SIGNED_IN_CARDS) byId(id).hidden = false;
  await Promise.all([refreshDestinations().catch(() => undefined), refreshHistory(), refreshBankAccount().catch(() => undefined)]);
  return true;
}

// ------------------------------------------------------------------ top-ups by bank transfer

/** Her account number, bank and name, with the fee in her language (the server's feePercent), or the button that makes the account. */
function showBankAccount(account: VirtualAccount | undefined): void {
  byId('bank-details').hidden = account === undefined;
  byId('bank-get').hidden = account !== undefined;
  if (!account) {
    byId('bank-fee').textContent = '';
    return;
  }
  byId('bank-name').textContent = account.bankName;
  byId('bank-account-number').textContent = account.accountNumber;
  byId('bank-account-name').textContent = account.accountName;
  const percent = Number(account.feePercent);
  const sent = 1000;
  const fee = Math.ceil(sent * percent) / 100;
  byId('bank-fee').textContent = percent === 0
    ? t('web.wallet.bankNoFee')
    : t('web.wallet.bankFee', { percent: account.feePercent, sent: money(sent, account.currency), added: money(sent - fee, account.currency) });
}

async function refreshBankAccount(): Promise<void> {
  const accounts = await request('GET', '/api/wallet/virtual-accounts');
  showBankAccount(accounts.data.find((account) => account.currency === currency) ?? accounts.data[0]);
}

/** The BVN field hidden and emptied: the number is never left on the page. */
function closeBvn(): void {
  byId('bank-bvn').hidden = true;
  input('bank-bvn-input').value = '';
}

/** An 11-digit BVN from what she typed (spaces and dashes ignored), or undefined. */
function typedBvn(): string | undefined {
  const digits = input('bank-bvn-input').value.replace(/[\s-]/g, '');
  return /^[0-9]{11}$/.test(digits) ? digits : undefined;
}

byId('bank-get').addEventListener('click', async () => {
  const button = byId<HTMLButtonElement>('bank-get');
  const error = byId('bank-error');
  error.textContent = '';
  // The BVN is asked for only once the provider has said it needs one (422 bvn_required).
  const asking = !byId('bank-bvn').hidden;
  const bvn = asking ? typedBvn() : undefined;
  if (asking && !bvn) {
    error.textContent = t('web.wallet.bvnInvalid');
    input('bank-bvn-input').focus();
    return;
  }
  button.disabled = true;
  try {
    showBankAccount(await request('POST', '/api/wallet/virtual-account', { body: bvn ? { bvn } : {} }));
    closeBvn();
  } catch (failure) {
    if (failure instanceof RequestError && failure.code === 'bvn_required') {
      byId('bank-bvn').hidden = false;
      error.textContent = asking ? t('web.wallet.bvnInvalid') : t('web.wallet.bvnNeeded');
      input('bank-bvn-input').focus();
    } else {
      error.textContent = failure instanceof RequestError && failure.status === 422 ? t('web.wallet.bankUnavailable') : failureText(failure);
    }
  } finally {
    button.disabled = false;
  }
});

handleSignIn(async (created) => {
  session = created;
  await enter();
  input('topup-amount').focus();
});

byId('signout').addEventListener('click', () => signOut());

// ------------------------------------------------------------------ recent activity

type Entry = { kind: 'top_up'; row: TopUp } | { kind: 'withdrawal'; row: Withdrawal } | { kind: 'bank_transfer'; row: BankTransfer };

function destinationText(destination: Withdrawal['destination']): string {
  return destination.type === 'mobile_wallet' ? destination.phone ?? '' : t('web.wallet.bankAccount', { account: destination.accountNumber ?? '' });
}

function historyItem(entry: Entry): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset.kind = entry.kind;
  item.dataset.status = entry.row.status;
  item.dataset.id = entry.row.id;
  const what = document.createElement('div');
  const title = document.createElement('strong');
  title.textContent = entry.kind === 'top_up'
    ? t('web.wallet.historyTopUp', { phone: entry.row.phone })
    : entry.kind === 'bank_transfer'
      ? t('web.wallet.historyBankTransfer', { sender: entry.row.senderName ?? entry.row.senderBank ?? t('web.wallet.bankTitle') })
      : t('web.wallet.historyWithdrawal', { destination: destinationText(entry.row.destination) });
  const when = document.createElement('span');
  when.className = 'muted';
  when.textContent = `${dateTime(entry.row.createdAt)} · ${t(`web.wallet.status.${entry.row.status}`)}`;
  what.append(title, when);
  const amount = document.createElement('span');
  amount.className = 'history-amount';
  amount.textContent = entry.kind === 'withdrawal' ? `−${money(entry.row.total, entry.row.currency)}` : `+${money(entry.row.amount, entry.row.currency)}`;
  item.append(what, amount);
  return item;
}

async function refreshHistory(): Promise<void> {
  byId('history-error').textContent = '';
  try {
    const [topUps, withdrawals, bankTransfers] = await Promise.all([
      request('GET', '/api/wallet/top-ups', { query: { limit: HISTORY_SIZE } }),
      request('GET', '/api/wallet/withdrawals', { query: { limit: HISTORY_SIZE } }),
      request('GET', '/api/wallet/bank-transfers', { query: { limit: HISTORY_SIZE } }),
    ]);
    const entries: Entry[] = [
      ...topUps.data.map((row) => ({ kind: 'top_up' as const, row })),
      ...withdrawals.data.map((row) => ({ kind: 'withdrawal' as const, row })),
      ...bankTransfers.data.map((row) => ({ kind: 'bank_transfer' as const, row })),
    ];
    entries.sort((a, b) => Date.parse(b.row.createdAt) - Date.parse(a.row.createdAt));
    const shown = entries.slice(0, HISTORY_SIZE);
    byId('history').replaceChildren(...shown.map(historyItem));
    byId('history-empty').hidden = shown.length > 0;
  } catch (failure) {
    if (session) byId('history-error').textContent = failureText(failure);
  }
}

async function refreshAll(): Promise<void> {
  await Promise.all([refreshBalance().catch(() => undefined), refreshHistory()]);
}

// ------------------------------------------------------------------ quotes

function debounced(run: () => Promise<void>): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => void run(), QUOTE_DELAY_MS);
  };
}

const quoteTopUp = debounced(async () => {
  const quote = byId('topup-quote');
  const amount = typedAmount(input('topup-amount').value);
  if (amount === null || !session) return void (quote.textContent = '');
  try {
    const answer = await request('GET', '/api/wallet/top-ups/quote', { query: { amount } });
    if (typedAmount(input('topup-amount').value) !== amount) return;
    // What the wallet's verification tier still lets in (docs/wallet-tiers.md), after the fee.
    const room = answer.limits.remainingIn === null ? '' : ` ${t('web.wallet.topUpRemaining', { remaining: money(answer.limits.remainingIn, answer.currency), tier: answer.limits.tier })}`;
    quote.textContent = answer.provider === null ? t('web.wallet.topUpUnavailable') : `${t('web.wallet.topUpQuote', { fee: money(answer.fee, answer.currency), total: money(answer.total, answer.currency) })}${room}`;
  } catch (failure) {
    quote.textContent = failureText(failure);
  }
});

const quoteWithdrawal = debounced(async () => {
  const quote = byId('withdraw-quote');
  const amount = typedAmount(input('withdraw-amount').value);
  if (amount === null || !session) return void (quote.textContent = '');
  try {
    const answer = await request('GET', '/api/wallet/withdrawals/quote', { query: { amount } });
    if (typedAmount(input('withdraw-amount').value) !== amount) return;
    quote.textContent = t('web.wallet.withdrawQuote', { fee: money(answer.fee, answer.currency), total: money(answer.total, answer.currency), remaining: money(answer.limits.remainingToday, answer.currency) });
  } catch (failure) {
    quote.textContent = failureText(failure);
  }
});

// ------------------------------------------------------------------ top-up

/** A new attempt hides the last one's outcome. */
function clearProgress(id: string): void {
  const progress = byId(id);
  progress.hidden = true;
  delete progress.dataset.status;
  delete progress.dataset.id;
}

function topUpWords(topUp: TopUp): string {
  switch (topUp.status) {
    case 'pending': return t('web.wallet.topUpPending', { total: money(topUp.total, topUp.currency), phone: topUp.phone });
    case 'completed': return t('web.wallet.topUpCompleted', { amount: money(topUp.amount, topUp.currency) });
    case 'expired': return t('web.wallet.topUpExpired');
    case 'failed': {
      const code = topUp.failureCode ?? '';
      return t('web.wallet.topUpFailed', { reason: TOP_UP_REASONS.has(code) ? t(`web.wallet.topUpReasons.${code}`) : topUp.failureReason ?? code });
    }
  }
}

function showTopUp(topUp: TopUp): void {
  const progress = byId('topup-progress');
  progress.hidden = false;
  progress.dataset.status = topUp.status;
  progress.dataset.id = topUp.id;
  byId('topup-status').textContent = topUpWords(topUp);
  const countdown = byId('topup-countdown');
  if (topUp.status === 'pending') {
    const seconds = Math.max(0, Math.ceil((Date.parse(topUp.expiresAt) - Date.now()) / 1000));
    countdown.textContent = t('web.wallet.secondsLeft', { seconds });
  } else {
    countdown.textContent = '';
  }
  byId<HTMLButtonElement>('topup-button').disabled = topUp.status === 'pending';
}

/** Reads the top-up until it ends; the countdown is redrawn each time. */
function followTopUp(id: string): void {
  later(FOLLOW_MS, async () => {
    if (!session) return;
    try {
      const topUp = await request('GET', '/api/wallet/top-ups/{id}', { params: { id } });
      showTopUp(topUp);
      if (topUp.status === 'pending') return followTopUp(id);
      await refreshAll();
    } catch (failure) {
      if (!session) return;
      byId('topup-countdown').textContent = failureText(failure);
      followTopUp(id);
    }
  });
}

byId('topup-form').addEventListener('input', () => {
  topUpKey = crypto.randomUUID();
  // A figure for another amount is never left on screen while the new one is asked.
  byId('topup-quote').textContent = '';
  quoteTopUp();
});

byId('topup-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('topup-error');
  error.textContent = '';
  const amount = typedAmount(input('topup-amount').value);
  if (amount === null) return void (error.textContent = t('web.wallet.enterAmount'));
  const phone = input('topup-phone').value.trim();
  if (phone === '') return void (error.textContent = t('web.wallet.enterPhone'));
  const button = byId<HTMLButtonElement>('topup-button');
  button.disabled = true;
  clearProgress('topup-progress');
  try {
    const topUp = await request('POST', '/api/wallet/top-ups', { body: { amount, currency, phone }, idempotencyKey: topUpKey });
    topUpKey = crypto.randomUUID();
    showTopUp(topUp);
    if (topUp.status === 'pending') followTopUp(topUp.id);
    else await refreshAll();
    await refreshHistory();
  } catch (failure) {
    error.textContent = failureText(failure);
    button.disabled = false;
  }
});

// ------------------------------------------------------------------ withdrawal

function withdrawalWords(withdrawal: Withdrawal): string {
  const values = { amount: money(withdrawal.amount, withdrawal.currency), total: money(withdrawal.total, withdrawal.currency), destination: destinationText(withdrawal.destination) };
  switch (withdrawal.status) {
    case 'pending':
    case 'processing': return t('web.wallet.withdrawSending', values);
    case 'completed': return t('web.wallet.withdrawCompleted', values);
    case 'failed': return t('web.wallet.withdrawFailed', { ...values, reason: withdrawal.failureReason ?? '' });
    case 'reversed': return t('web.wallet.withdrawReversed', values);
  }
}

const UNDER_WAY = new Set(['pending', 'processing']);

function showWithdrawal(withdrawal: Withdrawal): void {
  const progress = byId('withdraw-progress');
  progress.hidden = false;
  progress.dataset.status = withdrawal.status;
  progress.dataset.id = withdrawal.id;
  byId('withdraw-status').textContent = withdrawalWords(withdrawal);
}

function followWithdrawal(id: string): void {
  later(FOLLOW_MS, async () => {
    if (!session) return;
    try {
      const withdrawal = await request('GET', '/api/wallet/withdrawals/{id}', { params: { id } });
      showWithdrawal(withdrawal);
      if (UNDER_WAY.has(withdrawal.status)) return followWithdrawal(id);
      quoteWithdrawal();
      await refreshAll();
    } catch {
      if (session) followWithdrawal(id);
    }
  });
}

function showDestinationFields(): void {
  const to = byId<HTMLSelectElement>('withdraw-to').value;
  byId('withdraw-mobile').hidden = to !== 'mobile_wallet';
  byId('withdraw-bank').hidden = to !== 'bank_account';
}

/** The request's destination, or the words saying what is missing. */
function destinationOf(): { destination: NonNullable<Body<'POST', '/api/wallet/withdrawals'>['destination']> } | { destinationIndex: number } | string {
  const to = byId<HTMLSelectElement>('withdraw-to').value;
  if (to.startsWith('saved:')) return { destinationIndex: Number(to.slice('saved:'.length)) };
  if (to === 'mobile_wallet') {
    const phone = input('withdraw-phone').value.trim();
    return phone === '' ? t('web.wallet.enterPhone') : { destination: { type: 'mobile_wallet', phone } };
  }
  const accountNumber = input('withdraw-account').value.trim();
  const bankCode = input('withdraw-bank-code').value.trim();
  return accountNumber === '' || bankCode === '' ? t('web.wallet.enterAccount') : { destination: { type: 'bank_account', accountNumber, bankCode } };
}

byId('withdraw-to').addEventListener('change', showDestinationFields);

byId('withdraw-form').addEventListener('input', (event) => {
  // The PIN is not part of what is asked: typing it again after a wrong one keeps the key.
  if ((event.target as HTMLElement | null)?.id === 'withdraw-pin') return;
  withdrawalKey = crypto.randomUUID();
  byId('withdraw-quote').textContent = '';
  quoteWithdrawal();
});

byId('withdraw-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('withdraw-error');
  error.textContent = '';
  const amount = typedAmount(input('withdraw-amount').value);
  if (amount === null) return void (error.textContent = t('web.wallet.enterAmount'));
  const destination = destinationOf();
  if (typeof destination === 'string') return void (error.textContent = destination);
  const walletPin = input('withdraw-pin').value.trim();
  if (!isPin(walletPin)) return void (error.textContent = t('web.wallet.enterPin'));
  const button = byId<HTMLButtonElement>('withdraw-button');
  button.disabled = true;
  clearProgress('withdraw-progress');
  try {
    const withdrawal = await request('POST', '/api/wallet/withdrawals', { body: { amount, currency, walletPin, ...destination }, idempotencyKey: withdrawalKey });
    withdrawalKey = crypto.randomUUID();
    input('withdraw-pin').value = '';
    showWithdrawal(withdrawal);
    if (UNDER_WAY.has(withdrawal.status)) followWithdrawal(withdrawal.id);
    // What is left today changed with it.
    quoteWithdrawal();
    await refreshAll();
  } catch (failure) {
    error.textContent = failureText(failure);
    input('withdraw-pin').value = '';
  } finally {
    button.disabled = false;
  }
});

// ------------------------------------------------------------------ start

showDestinationFields();
// A reload (or coming from the offline QR page) stays signed in while the tab's session works.
resumeWalletSession((resumed) => (session = resumed), enter, () => signOut(t('web.offlineQr.sessionEnded')));
