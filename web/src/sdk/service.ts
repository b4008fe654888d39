/**
 * Tapline checkout drop-in, served at {base_url}/sdk/service.js and embedded by merchants' pages:
 *
 *   <script src="https://tapline.example/sdk/service.js"></script>
 *   Tapline.checkout({ publishableKey: 'pk_test_…', amount: 12.5, currency: 'NGN', reference: 'order-42',
 *                      onSuccess: function (session) { … }, onCancel: function () { … } });
 *
 * It opens a checkout session with the publishable key, detects the customer's country and offers
 * the rails the session answered (mobile money, bank transfer, QR) plus paying from a Tapline
 * wallet. Built by Vite into one standalone IIFE (web/src/build.ts); the modal lives in a shadow
 * root so the merchant's CSS cannot reach it (and ours cannot leak out). It speaks the buyer's
 * language (the `locale` option, else the browser's; English otherwise) with the shared
 * catalogues' words, of which the bundle carries only its own (words.ts).
 */
import { formatMoney, minorFromMajor } from '@tapline/shared/money';
import { isHandle, isPin } from '@tapline/shared/wallet-input';
import type { Answer, Body } from '@tapline/shared/api';
import { type Reply, callAt, errorOf, idempotencyKey } from '../lib/api.ts';
import { detectCountry } from './country.ts';
import { STYLE } from './style.ts';
import { type TextName, type Words, chooseLanguage, wordsFor } from './words.ts';

export interface CheckoutOptions {
  publishableKey: string;
  amount: number;
  currency: string;
  reference?: string;
  description?: string;
  customerCountry?: string;
  /** The buyer's language as a BCP 47 tag ("fr", "pt-MZ"); default: the browser's. */
  locale?: string;
  onSuccess?: (session: CheckoutSession) => void;
  onCancel?: () => void;
  /** The checkout cannot open because of the integration (key, origin, amount...): the detail for the developer. */
  onError?: (error: IntegrationError) => void;
}

/** Why the checkout could not open: the API's code and words (or the drop-in's own), and the HTTP status (0: none was sent). */
export interface IntegrationError {
  code: string;
  message: string;
  status: number;
}

/** A checkout session as the server answers it. */
type CheckoutSession = Answer<'GET', '/api/checkout/sessions/{id}'>;
/** What paying a checkout session sends (one of its rails). */
type PayBody = Body<'POST', '/api/checkout/sessions/{id}/pay'>;

const SCRIPT_PATH = /\/sdk\/service\.js(?:[?#].*)?$/;
const POLL_INTERVAL_MS = 1000;
const RAILS: readonly string[] = ['mobile_money', 'bank_transfer', 'qr', 'wallet'] satisfies TextName[];

/** {base_url}: where this very script was loaded from. */
function findBaseUrl(): string {
  let script = document.currentScript as HTMLScriptElement | null;
  if (!script || !SCRIPT_PATH.test(script.src)) {
    script = [...document.querySelectorAll<HTMLScriptElement>('script[src]')].reverse().find((candidate) => SCRIPT_PATH.test(candidate.src)) ?? null;
  }
  return script ? script.src.replace(SCRIPT_PATH, '') : '';
}
const BASE_URL = findBaseUrl();

/** The one money format (shared/src/money.ts), in the buyer's language. */
function formatAmount(words: Words, amount: number, currency: string): string {
  try {
    return formatMoney(minorFromMajor(amount, currency), currency, words.language);
  } catch {
    return `${currency} ${amount}`;
  }
}

/** An API error as its code's sentence in the buyer's language, else the server's own words. */
function errorText(words: Words, answer: Reply<unknown>): string {
  const { code, words: said } = errorOf(answer);
  return words.reason(code, said ?? words.t('serverAnswered', { status: String(answer.status) }));
}

/** Styles for the shadow root: a constructed sheet where supported, else a <style> element. */
function applyStyle(root: ShadowRoot): void {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
    root.adoptedStyleSheets = [sheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = STYLE;
    root.appendChild(style);
  }
}

type Attributes = Record<string, string | boolean | undefined | null>;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, children: (Node | null)[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

function field(id: string, label: string, attributes: Attributes): HTMLElement[] {
  return [el('label', { for: id, text: label }), el('input', { id, ...attributes })];
}

/** Opens the checkout modal. Returns {close}. */
function checkout(options: CheckoutOptions): { close: () => void } {
  options = options || ({} as CheckoutOptions);
  const words = wordsFor(chooseLanguage(options.locale));
  const { t } = words;
  const money = (amount: number, currency: string) => formatAmount(words, amount, currency);
  const onSuccess = typeof options.onSuccess === 'function' ? options.onSuccess : () => undefined;
  const onCancel = typeof options.onCancel === 'function' ? options.onCancel : () => undefined;
  const onError = typeof options.onError === 'function' ? options.onError : () => undefined;
  let session: CheckoutSession | null = null;
  let finished = false;
  let closed = false;
  let pollTimer: ReturnType<typeof setTimeout> | null = null;
  let activeTab: string | null = null;
  const attemptKeys = new Map<string, string>();

  const host = el('div', { 'data-tapline-checkout': '' });
  const root = host.attachShadow({ mode: 'open' });
  applyStyle(root);
  const closeButton = el('button', { class: 'close', type: 'button', 'aria-label': t('close'), text: '\u00d7' });
  const merchantLine = el('p', { class: 'merchant', text: t('checkout') });
  const amountLine = el('p', { class: 'amount', id: 'amount', text: money(options.amount, options.currency) });
  const summary = el('div', {}, [merchantLine, amountLine]);
  if (options.description) summary.appendChild(el('p', { class: 'description', text: options.description }));
  const busyText = el('span', { text: t('preparing') });
  const busy = el('div', { class: 'busy', id: 'busy', role: 'status' }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }), busyText]);
  const tabs = el('div', { class: 'tabs', role: 'tablist', hidden: true });
  const panels = el('div', { id: 'panels' });
  const error = el('p', { class: 'error', id: 'error', role: 'alert' });
  const result = el('div', { class: 'center', id: 'result', hidden: true });
  const dialog = el('div', { class: 'dialog', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('dialog'), lang: words.language }, [el('div', { class: 'head' }, [summary, closeButton]), busy, tabs, panels, error, result]);
  const overlay = el('div', { class: 'overlay', id: 'overlay' }, [dialog]);
  root.appendChild(overlay);
  document.body.appendChild(host);

  const inputValue = (id: string): string => (root.getElementById(id) as HTMLInputElement).value;

  function setBusy(text: string): void {
    busy.hidden = !text;
    if (text) busyText.textContent = text;
  }

  function stopPolling(): void {
    if (pollTimer !== null) clearTimeout(pollTimer);
    pollTimer = null;
  }

  function close(): void {
    if (closed) return;
    closed = true;
    stopPolling();
    document.removeEventListener('keydown', onKey, true);
    host.remove();
    if (!finished) onCancel();
  }

  function onKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') close();
  }
  document.addEventListener('keydown', onKey, true);
  closeButton.addEventListener('click', close);
  overlay.addEventListener('click', (event) => {
    if (event.target === overlay) close();
  });

  /** The end of the checkout: paid (onSuccess) or failed; either way the form is gone. */
  function showOutcome(answer: CheckoutSession): void {
    session = answer;
    stopPolling();
    setBusy('');
    tabs.hidden = true;
    panels.hidden = true;
    error.textContent = '';
    result.hidden = false;
    result.dataset.status = answer.status;
    result.textContent = '';
    const paid = answer.status === 'paid';
    result.appendChild(el('div', { class: `icon ${paid ? 'paid' : 'failed'}`, 'aria-hidden': 'true', text: paid ? '\u2713' : '\u00d7' }));
    result.appendChild(el('h2', { id: 'result-title', text: t(paid ? 'paid' : answer.status === 'expired' ? 'expired' : 'failed') }));
    const paidValues = { amount: money(answer.amount, answer.currency), merchant: answer.merchant.name, reference: answer.reference ?? '' };
    result.appendChild(
      el('p', {
        id: 'result-message',
        text: paid ? t(answer.reference ? 'paidToFor' : 'paidTo', paidValues) : answer.failureReason || t('failedText'),
      }),
    );
    const done = el('button', { class: 'pay', id: 'done', type: 'button', text: t(paid ? 'done' : 'close') });
    done.addEventListener('click', close);
    result.appendChild(done);
    if (paid && !finished) {
      finished = true;
      onSuccess(answer);
    }
  }

  /** Sends a payment; one Idempotency-Key per tab and inputs, so a double click cannot pay twice. */
  function pay(button: HTMLButtonElement, body: PayBody): void {
    error.textContent = '';
    button.disabled = true;
    const signature = JSON.stringify(body);
    const key = attemptKeys.get(signature) ?? idempotencyKey();
    attemptKeys.set(signature, key);
    setBusy(t(body.method === 'wallet' ? 'payingWallet' : 'waiting'));
    callAt(BASE_URL, 'POST', '/api/checkout/sessions/{id}/pay', { params: { id: session!.id }, body, headers: { 'idempotency-key': key } }).then(
      (answer) => {
        setBusy('');
        button.disabled = false;
        if (answer.status === 200 && answer.data) return showOutcome(answer.data);
        // A retry with other inputs gets a new key; a wrong PIN's key is released by the server.
        attemptKeys.delete(signature);
        error.textContent = errorText(words, answer);
      },
      () => {
        setBusy('');
        button.disabled = false;
        error.textContent = t('networkError');
      },
    );
  }

  function poll(): void {
    stopPolling();
    pollTimer = setTimeout(() => {
      callAt(BASE_URL, 'GET', '/api/checkout/sessions/{id}', { params: { id: session!.id }, headers: { authorization: `Bearer ${options.publishableKey}` } }).then(
        (answer) => {
          if (closed || activeTab !== 'qr') return;
          if (answer.status === 200 && answer.data && answer.data.status !== 'open') return showOutcome(answer.data);
          poll();
        },
        () => {
          if (!closed && activeTab === 'qr') poll();
        },
      );
    }, POLL_INTERVAL_MS);
  }

  /** A rail's form: its field, a check of what was typed, and the Pay button. */
  function panelFor(rail: string, current: CheckoutSession): HTMLElement {
    const panel = el('div', { role: 'tabpanel', 'data-panel': rail, hidden: true });
    if (rail === 'qr') {
      panel.className = 'center';
      panel.appendChild(el('img', { class: 'qr', id: 'tp-qr', alt: t('qrAlt'), src: `${BASE_URL}/pos/qr.svg?data=${encodeURIComponent(current.qrPayload)}` }));
      panel.appendChild(el('p', { class: 'hint', text: t('qrHint') }));
      panel.appendChild(el('div', { class: 'busy' }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }), el('span', { text: t('waitingQr') })]));
      return panel;
    }
    const button = el('button', { class: 'pay', type: 'button', id: `pay-${rail}`, text: t('payAmount', { amount: money(current.amount, current.currency) }) });
    let fields: HTMLElement[];
    let body: () => PayBody | string;
    if (rail === 'wallet') {
      fields = [
        ...field('tp-handle', t('handle'), { autocomplete: 'username', placeholder: t('handleSample'), spellcheck: 'false', autocapitalize: 'none' }),
        ...field('tp-pin', t('pin'), { type: 'password', inputmode: 'numeric', autocomplete: 'current-password', placeholder: t('pinSample') }),
      ];
      body = () => {
        const handle = inputValue('tp-handle').trim();
        const pin = inputValue('tp-pin').trim();
        if (!isHandle(handle)) return t('enterHandle');
        if (!isPin(pin)) return t('pinDigits');
        return { method: 'wallet', handle, pin };
      };
    } else if (rail === 'mobile_money') {
      fields = field('tp-phone', t('phone'), { type: 'tel', autocomplete: 'tel', placeholder: '+234 801 234 5678' });
      body = () => {
        const phone = inputValue('tp-phone').replace(/[\s().-]/g, '');
        return /^\+?[0-9]{7,15}$/.test(phone) ? { method: 'mobile_money', phone } : t('enterPhone');
      };
    } else {
      fields = field('tp-account', t('account'), { inputmode: 'numeric', autocomplete: 'off', placeholder: '0123456789' });
      body = () => {
        const account = inputValue('tp-account').replace(/\s/g, '');
        return /^[0-9A-Za-z]{6,34}$/.test(account) ? { method: 'bank_transfer', accountNumber: account } : t('enterAccount');
      };
    }
    for (const node of fields) panel.appendChild(node);
    button.addEventListener('click', () => {
      const checked = body();
      if (typeof checked === 'string') error.textContent = checked;
      else pay(button, checked);
    });
    if (current.mode === 'test' && rail !== 'wallet') panel.appendChild(el('p', { class: 'hint', text: t('sandbox') }));
    panel.appendChild(button);
    return panel;
  }

  function select(rail: string): void {
    activeTab = rail;
    error.textContent = '';
    for (const tab of tabs.children) tab.setAttribute('aria-selected', String((tab as HTMLElement).dataset.tab === rail));
    for (const panel of panels.children) (panel as HTMLElement).hidden = (panel as HTMLElement).dataset.panel !== rail;
    if (rail === 'qr') poll();
    else stopPolling();
  }

  function render(current: CheckoutSession): void {
    setBusy('');
    merchantLine.textContent = t('payTo', { merchant: current.merchant.name });
    amountLine.textContent = money(current.amount, current.currency);
    if (current.mode === 'test') summary.appendChild(el('span', { class: 'badge', text: t('testMode') }));
    for (const rail of [...current.rails, 'wallet']) {
      const tab = el('button', { class: 'tab', type: 'button', role: 'tab', 'data-tab': rail, 'aria-selected': 'false', text: RAILS.includes(rail) ? t(rail as TextName) : rail });
      tab.addEventListener('click', () => select(rail));
      tabs.appendChild(tab);
      panels.appendChild(panelFor(rail, current));
    }
    tabs.hidden = false;
    select(current.rails[0] ?? 'wallet');
  }

  const country = options.customerCountry || detectCountry();
  const body: Body<'POST', '/api/checkout/sessions'> = { amount: options.amount, currency: options.currency };
  if (options.reference) body.reference = options.reference;
  if (options.description) body.description = options.description;
  if (country) body.customerCountry = country;
  /**
   * The checkout cannot open because of how the shop set it up: the buyer reads a plain sentence,
   * the developer the detail (the browser's console and onError).
   */
  function integrationFailed(problem: Error, code: string, status: number): void {
    setBusy('');
    error.textContent = t('unavailable');
    console.error(`Tapline.checkout: ${problem.message} (${code}${status ? `, HTTP ${status}` : ''})`);
    onError({ code, message: problem.message, status });
  }

  if (!options.publishableKey) {
    integrationFailed(new Error('Tapline.checkout needs a publishableKey'), 'publishable_key_missing', 0);
  } else {
    callAt(BASE_URL, 'POST', '/api/checkout/sessions', { body, headers: { authorization: `Bearer ${options.publishableKey}` } }).then(
      (answer) => {
        if (closed) return;
        if (answer.status !== 201 || !answer.data) {
          const { code, words: said } = errorOf(answer);
          // 4xx but too many attempts: the key, its origins or the options are wrong, nothing the buyer can mend.
          if (answer.status >= 400 && answer.status < 500 && answer.status !== 429) {
            return integrationFailed(new Error(said ?? `HTTP ${answer.status}`), code ?? 'http_error', answer.status);
          }
          setBusy('');
          error.textContent = errorText(words, answer);
          return;
        }
        session = answer.data;
        host.setAttribute('data-session-id', session.id);
        render(session);
      },
      () => {
        setBusy('');
        error.textContent = t('networkError');
      },
    );
  }
  return { close };
}

const global = window as unknown as { Tapline?: Record<string, unknown> };
// Loaded twice on one page: the first copy stays.
if (!global.Tapline?.checkout) global.Tapline = Object.assign(global.Tapline ?? {}, { checkout, detectCountry, baseUrl: BASE_URL });
