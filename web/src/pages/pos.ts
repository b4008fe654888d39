/**
 * The built-in web POS (/pos): pair with the till's pairing code (POST /api/terminals/pair, as
 * the kiosk does; a raw terminal token stays possible for support, behind a link), charge an
 * amount, show the session's QR code, read a wearable with Web NFC where the browser has it, poll
 * every second, and show the outcome. It uses only the public API.
 */
import { isTagId, parseTapUrl } from '@tapline/shared/ndef';
import type { Answer, Method, Parts, PartsArgument, Route } from '@tapline/shared/api';
import { type Reply, call } from '../lib/api.ts';
import { byId, input, typedAmount } from '../lib/dom.ts';
import { errorText, example, money, t, time } from '../lib/page-i18n.ts';

/** Web NFC (Chrome on Android): not in TypeScript's DOM library yet. */
interface NdefRecordLike {
  recordType: string;
  data?: DataView;
}
interface NdefReaderLike extends EventTarget {
  scan(options: { signal: AbortSignal }): Promise<void>;
}
type NdefReaderConstructor = new () => NdefReaderLike;

/** A POS session as the server answers it. */
type Session = Answer<'GET', '/api/pos/sessions/{sessionId}'>;

const TOKEN_KEY = 'tapline.pos.token';
const POLL_MS = 1000;
const SECTIONS = ['signin', 'charge', 'waiting', 'result'];
const FINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

const state = {
  token: null as string | null,
  session: null as Session | null,
  pollTimer: undefined as number | undefined,
  countdownTimer: undefined as number | undefined,
  nfcAbort: null as AbortController | null,
  tapInFlight: false,
};

function show(name: string): void {
  for (const section of SECTIONS) byId(section).hidden = section !== name;
  document.body.dataset.view = name;
}

/** Terminal tokens are sent as Bearer term.<64 hex>; accept the token with or without its prefix. */
function normaliseToken(text: string): string | null {
  const bare = text.trim().replace(/^Bearer\s+/i, '').replace(/^term\./, '');
  return /^[0-9a-f]{64}$/.test(bare) ? `term.${bare}` : null;
}

/** A call with the terminal's token. */
function api<M extends Method, P extends Route<M>>(method: M, path: P, ...[parts]: PartsArgument<M, P>): Promise<Reply<Answer<M, P>>> {
  const sent = { ...parts, headers: { authorization: `Bearer ${state.token}`, ...parts?.headers } } as Parts<M, P>;
  return call(method, path, ...([sent] as PartsArgument<M, P>));
}

// ------------------------------------------------------------------ sign in

/** Answers null when signed in, else why not. */
async function signIn(token: string): Promise<string | null> {
  state.token = token;
  const answer = await api('GET', '/api/pos/context');
  const context = answer.data;
  if (answer.status !== 200 || !context) {
    state.token = null;
    return errorText(answer);
  }
  localStorage.setItem(TOKEN_KEY, token);
  const terminal = context.terminal ? ` · ${context.terminal.name}` : '';
  byId('who').textContent = `${context.merchant.name} ${context.merchant.handle}${terminal}${context.mode === 'test' ? ` · ${t('common.testMode')}` : ''}`;
  const currency = byId<HTMLSelectElement>('currency');
  if ([...currency.options].some((option) => option.value === context.merchant.currency)) currency.value = context.merchant.currency;
  showCharge();
  return null;
}

function signOut(): void {
  stopWaiting();
  localStorage.removeItem(TOKEN_KEY);
  state.token = null;
  input('token').value = '';
  input('pairing-code').value = '';
  showSignIn(false);
}

/** The sign-in: the pairing code, or (support) the raw token. */
function showSignIn(advanced: boolean): void {
  byId('pair-panel').hidden = advanced;
  byId('token-panel').hidden = !advanced;
  byId('show-advanced').textContent = t(advanced ? 'web.pos.hideAdvanced' : 'web.pos.advanced');
  byId('signin-error').textContent = '';
  show('signin');
  input(advanced ? 'token' : 'pairing-code').focus();
}

byId('show-advanced').addEventListener('click', () => showSignIn(byId('token-panel').hidden));

byId('pair-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('signin-error');
  error.textContent = '';
  const code = input('pairing-code').value.trim();
  if (code === '') return void (error.textContent = t('web.pos.pairingCodeMissing'));
  const button = byId<HTMLButtonElement>('pair-button');
  button.disabled = true;
  button.textContent = t('web.pos.pairing');
  try {
    const paired = await call('POST', '/api/terminals/pair', { body: { code } });
    if (paired.status !== 200 || !paired.data) return void (error.textContent = errorText(paired));
    input('pairing-code').value = '';
    // The code is used up: the token it gave is this device's from now on, kept at once so a
    // sign-in that fails on the network now finds it at the next load.
    const token = `term.${paired.data.token}`;
    localStorage.setItem(TOKEN_KEY, token);
    const problem = await signIn(token);
    if (problem) error.textContent = problem;
  } catch {
    error.textContent = t('errors.network_error');
  } finally {
    button.disabled = false;
    button.textContent = t('web.pos.pair');
  }
});

byId('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('signin-error');
  error.textContent = '';
  const token = normaliseToken(input('token').value);
  if (!token) return void (error.textContent = t('web.pos.tokenInvalid'));
  const problem = await signIn(token);
  if (problem) error.textContent = problem;
});
byId('signout').addEventListener('click', signOut);

// ------------------------------------------------------------------ charge

function showCharge(): void {
  stopWaiting();
  state.session = null;
  byId('charge-error').textContent = '';
  byId<HTMLButtonElement>('charge-button').disabled = false;
  show('charge');
  input('amount').focus();
}

byId('charge-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = byId('charge-error');
  error.textContent = '';
  const currency = byId<HTMLSelectElement>('currency').value;
  const amount = typedAmount(input('amount').value);
  if (amount === null) return void (error.textContent = t('web.pay.enterAmount', { example: example(currency) }));
  // Start listening for tags inside the click: Web NFC asks for permission on a user gesture.
  startNfc();
  const button = byId<HTMLButtonElement>('charge-button');
  button.disabled = true;
  const description = input('description').value.trim();
  const body = { amount, currency, ...(description ? { description } : {}) };
  const answer = await api('POST', '/api/pos/sessions', { body, headers: { 'idempotency-key': crypto.randomUUID() } });
  button.disabled = false;
  if (answer.status !== 201 || !answer.data) {
    stopNfc();
    if (answer.status === 401) return signOut();
    error.textContent = errorText(answer);
    return;
  }
  startWaiting(answer.data);
});

// ------------------------------------------------------------------ waiting for the tap

function startWaiting(session: Session): void {
  state.session = session;
  state.tapInFlight = false;
  byId('waiting').dataset.sessionId = session.sessionId;
  byId('waiting-amount').textContent = money(session.amount, session.currency);
  byId('waiting-description').textContent = session.description || t('web.pos.newSale');
  byId<HTMLImageElement>('qr').src = `/pos/qr.svg?data=${encodeURIComponent(session.qrPayload)}`;
  byId('waiting-error').textContent = '';
  input('manual-tag').value = '';
  show('waiting');
  // The countdown runs on this device's clock from the moment the session arrived: its length
  // is the server's ttlSeconds, so a skewed phone clock cannot shorten or lengthen it.
  const deadline = Date.now() + session.ttlSeconds * 1000;
  const tick = () => {
    byId('countdown').textContent = String(Math.max(0, Math.ceil((deadline - Date.now()) / 1000)));
  };
  tick();
  state.countdownTimer = window.setInterval(tick, 250);
  state.pollTimer = window.setInterval(() => void poll(), POLL_MS);
}

function stopWaiting(): void {
  window.clearInterval(state.pollTimer);
  window.clearInterval(state.countdownTimer);
  state.pollTimer = undefined;
  state.countdownTimer = undefined;
  stopNfc();
}

async function poll(): Promise<void> {
  const session = state.session;
  if (!session) return;
  const answer = await api('GET', '/api/pos/sessions/{sessionId}', { params: { sessionId: session.sessionId } });
  if (state.session !== session) return;
  if (answer.status === 200 && answer.data && answer.data.status !== 'pending') finish(answer.data);
  else if (answer.status === 401) signOut();
}

async function sendTap(tagId: string): Promise<void> {
  const session = state.session;
  if (!session || state.tapInFlight) return;
  state.tapInFlight = true;
  byId('nfc-status').textContent = t('web.pos.tagPaying', { tagId });
  const answer = await api('POST', '/api/pos/sessions/{sessionId}/tap', { params: { sessionId: session.sessionId }, body: { tagId }, headers: { 'idempotency-key': `${session.sessionId}:${tagId}` } });
  state.tapInFlight = false;
  if (state.session !== session) return;
  if (answer.status === 200 && answer.data) return finish(answer.data);
  if (answer.status === 409 || answer.status === 410) return poll();
  byId('waiting-error').textContent = errorText(answer);
  byId('nfc-status').textContent = t('web.pos.waitingTap');
}

byId('manual-tap-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const tagId = input('manual-tag').value.trim().toUpperCase();
  if (!isTagId(tagId)) return void (byId('waiting-error').textContent = t('web.pos.tagIdInvalid'));
  byId('waiting-error').textContent = '';
  void sendTap(tagId);
});

byId('cancel').addEventListener('click', async () => {
  const session = state.session;
  if (!session) return;
  const answer = await api('POST', '/api/pos/sessions/{sessionId}/cancel', { params: { sessionId: session.sessionId } });
  if (answer.status === 200 && answer.data) finish(answer.data);
  else if (answer.status === 409 || answer.status === 410) void poll();
  else byId('waiting-error').textContent = errorText(answer);
});

// ------------------------------------------------------------------ Web NFC

/** The tag id of a record holding one of our tap URLs ({base_url}/tap/TG…), else null. */
function tagIdFromRecord(record: NdefRecordLike): string | null {
  if ((record.recordType !== 'url' && record.recordType !== 'absolute-url') || !record.data) return null;
  return parseTapUrl(new TextDecoder().decode(record.data))?.tagId ?? null;
}

function startNfc(): void {
  const Reader = (window as unknown as { NDEFReader?: NdefReaderConstructor }).NDEFReader;
  const status = byId('nfc-status');
  if (!Reader) return void (status.textContent = t('web.pos.noNfc'));
  if (state.nfcAbort) return;
  const abort = new AbortController();
  state.nfcAbort = abort;
  const unavailable = (error: unknown) => {
    state.nfcAbort = null;
    status.textContent = t('web.pos.nfcUnavailable', { reason: error instanceof Error ? error.name : String(error) });
  };
  try {
    const reader = new Reader();
    reader.addEventListener('reading', (event) => {
      const records = (event as Event & { message: { records: NdefRecordLike[] } }).message.records;
      for (const record of records) {
        const tagId = tagIdFromRecord(record);
        if (tagId) return void sendTap(tagId);
      }
      byId('waiting-error').textContent = t('web.pos.notTapline');
    });
    reader.addEventListener('readingerror', () => {
      byId('waiting-error').textContent = t('web.pos.readError');
    });
    reader.scan({ signal: abort.signal }).then(() => {
      status.textContent = t('web.pos.waitingTapPhone');
    }, unavailable);
  } catch (error) {
    unavailable(error);
  }
}

function stopNfc(): void {
  state.nfcAbort?.abort();
  state.nfcAbort = null;
}

// ------------------------------------------------------------------ outcome

function addDetail(list: HTMLElement, label: string, value: string | null | undefined): void {
  if (value === undefined || value === null || value === '') return;
  const term = document.createElement('dt');
  term.textContent = label;
  const detail = document.createElement('dd');
  detail.textContent = value;
  list.append(term, detail);
}

function finish(session: Session): void {
  stopWaiting();
  state.session = null;
  const { status } = session;
  const result = byId('result');
  result.dataset.status = status;
  result.dataset.sessionId = session.sessionId;
  byId('result-icon').className = `result-icon ${status}`;
  byId('result-title').textContent = FINAL.has(status) ? t(`web.pos.${status}`) : status;
  byId('result-amount').textContent = money(session.amount, session.currency);
  const details = byId('result-details');
  details.replaceChildren();
  addDetail(details, t('web.pos.payer'), session.payerHandle);
  addDetail(details, t('web.pos.reason'), status === 'completed' ? undefined : session.errorMessage);
  addDetail(details, t('web.pos.reference'), session.walletRef);
  addDetail(details, t('web.pos.for'), session.description);
  addDetail(details, t('web.pos.time'), time(session.endedAt || session.createdAt));
  show('result');
  byId('new-sale').focus();
}

byId('new-sale').addEventListener('click', () => {
  input('amount').value = '';
  input('description').value = '';
  showCharge();
});

// ------------------------------------------------------------------ start

const saved = localStorage.getItem(TOKEN_KEY);
if (saved) {
  void signIn(saved).then((problem) => {
    if (problem) {
      localStorage.removeItem(TOKEN_KEY);
      showSignIn(false);
    }
  });
} else {
  showSignIn(false);
}
