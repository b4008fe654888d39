import { readFile } from 'node:fs/promises';
import { extname, normalize } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../http/typed-app.ts';
import QRCode from 'qrcode';
import { Type } from 'typebox';
import { SUPPORTED_CURRENCIES } from '@tapline/shared/countries';
import { QR_TEXT_LENGTH_MAX } from '@tapline/shared/limits';
import { HANDLE_PATTERN as HANDLE } from '@tapline/shared/wallet-input';
import type { AppContext } from '../context.ts';
import type { Mode } from '../auth/secrets.ts';
import { ApiError } from '../http/errors.ts';
import { displayHandle } from '../http/validate.ts';
import { findMerchant } from '../modules/merchants/index.ts';
import { findWallet } from '../modules/wallets/index.ts';
import { normalizeTagId, resolveTag } from '../modules/wearables/index.ts';
import { findSession, posService } from '../modules/pos/index.ts';
import { checkoutService } from '../modules/checkout/index.ts';
import { PAGE_SECURITY_HEADERS, type RawHtml, html, page } from './html.ts';
import { type PageI18n, pageI18n, requestedLanguage, withLanguage } from './i18n-page.ts';
import { fileIn } from './static-file.ts';
import { walletPageBody, walletSignInCard } from './wallet-page.ts';

/**
 * Built by Vite from web/ (WEB_DIR): the pages' scripts and stylesheet under /web/, the drop-in
 * at /sdk/service.js. Read from disk on every request, so a rebuild (`npm start` watches the
 * sources) is served at once; the server sends them no-cache for the same reason.
 */
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
/**
 * Loaded by other sites' pages: any origin may fetch it (CORS, and CORP for pages that isolate
 * themselves); cached briefly so a fix reaches every merchant's checkout within minutes.
 */
const SDK_HEADERS = {
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
  'cache-control': 'public, max-age=300',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The links /pos/qr.svg draws: POS sessions (/tap/<id>) and checkout sessions (/pay/checkout/<id>). */
const QR_PREFIXES = ['/tap/', '/pay/checkout/'];

function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  // The language may come from Accept-Language: a shared cache must not mix them up.
  return reply.status(status).headers({ ...PAGE_SECURITY_HEADERS, vary: 'accept-language' }).type('text/html; charset=utf-8').send(body);
}

/** The brand name is a name: it reads the same in every language. */
const BRAND = 'Tapline';

function header(i18n: PageI18n, subtitle: string): RawHtml {
  return html`<header class="bar"><div class="brand"><span class="logo" aria-hidden="true"></span>${BRAND} <span class="subtitle">${subtitle}</span></div>${i18n.switcher}</header>`;
}

function messagePage(i18n: PageI18n, title: string, message: string, tone: 'error' | 'neutral' = 'error'): string {
  return page({
    title: `${title} · ${BRAND}`,
    language: i18n.language,
    body: html`<main class="shell">${header(i18n, i18n.t.t('web.brandSubtitle.pay'))}<section class="card center"><div class="result-icon ${tone === 'error' ? 'failed' : 'expired'}" aria-hidden="true"></div><h1>${title}</h1><p class="muted">${message}</p></section></main>`,
  });
}

const SESSION_STATUSES = new Set(['completed', 'failed', 'expired', 'cancelled']);
const CHECKOUT_STATUSES = new Set(['open', 'paid', 'failed', 'expired']);

/** Where pay.js shows the outcome of a payment (hidden until then). */
function payResult(className: string): RawHtml {
  return html`<div id="pay-result" class="${className}" hidden>
    <div id="result-icon" class="result-icon" aria-hidden="true"></div>
    <h1 id="result-title"></h1>
    <p id="result-message" class="muted"></p>
  </div>`;
}

/**
 * A request to pay a fixed amount (a POS session, a checkout session): who is paid, how much, and
 * either the @handle + PIN form (statusWords null: still payable) or why it can no longer be paid.
 */
function payRequestPage(
  reply: FastifyReply,
  i18n: PageI18n,
  request: { subtitle: string; merchant: { name: string; handle: string } | undefined; amountLabel: string; description: string | null; statusWords: string | null; status: string; data: Record<string, string> },
): FastifyReply {
  const { t } = i18n;
  const { amountLabel } = request;
  const merchantName = request.merchant?.name ?? t.t('web.pay.merchantFallback');
  const body = html`<main class="shell">
${header(i18n, request.subtitle)}
<section class="card center" id="session-card">
  <p class="muted">${t.t('web.pay.payMerchant', { merchant: merchantName })} <span class="handle">${request.merchant ? displayHandle(request.merchant.handle) : ''}</span></p>
  <div class="amount-display">${amountLabel}</div>
  ${request.description ? html`<p class="description">${request.description}</p>` : ''}
  ${request.statusWords === null
    ? html`<form id="pay-form" class="left" autocomplete="on">
    <label for="handle">${t.t('web.pay.handle')}</label>
    <input id="handle" name="username" autocomplete="username" required placeholder="${t.t('web.pay.handlePlaceholder')}" spellcheck="false" autocapitalize="none">
    <label for="pin">${t.t('web.pay.pin')}</label>
    <input id="pin" name="pin" type="password" inputmode="numeric" pattern="[0-9]{4,8}" autocomplete="current-password" required placeholder="${t.t('web.pay.pinPlaceholder')}">
    <button id="pay-button" type="submit" class="primary big">${t.t('web.pay.payAmount', { amount: amountLabel })}</button>
    <p id="pay-error" class="error" role="alert"></p>
  </form>`
    : html`<p class="status-pill status-${request.status}">${request.statusWords}</p>`}
  ${payResult('')}
</section>
</main>`;
  return sendPage(reply, 200, page({ title: t.t('web.pay.documentTitle', { amount: amountLabel }), language: i18n.language, i18nData: i18n.scriptData, body, script: 'pay', data: request.data }));
}

/** The pages of ARCHITECTURE.md's web/: /pos, /tap/<tagId or sessionId>, /pay/<handle>, and their assets. */
export async function webRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config } = context;
  const pos = posService(context);
  const checkout = checkoutService(context);
  const hidden = { schema: { hide: true } };

  const webDir = normalize(config.webDir);

  app.get('/sdk/service.js', hidden, async (_request, reply) => {
    const file = await fileIn(webDir, 'sdk/service.js');
    if (!file) throw new ApiError(503, 'pages_not_built', 'The pages and the drop-in have not been built: run npm start, or npm run build -w @tapline/web');
    return reply.headers(SDK_HEADERS).type('text/javascript; charset=utf-8').send(await readFile(file));
  });

  app.get('/web/*', hidden, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    const type = TYPES[extname(rest)];
    const file = type && !rest.startsWith('sdk/') ? await fileIn(webDir, rest) : undefined;
    if (!type || !file) {
      const i18n = pageI18n(request);
      return sendPage(reply, 404, messagePage(i18n, i18n.t.t('web.notFound.title'), i18n.t.t('web.notFound.text')));
    }
    return reply.headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' }).type(type).send(await readFile(file));
  });

  app.get('/pos', hidden, async (request, reply) => {
    const i18n = pageI18n(request);
    const { t } = i18n;
    const currencies = [...SUPPORTED_CURRENCIES].sort();
    const [expiresBefore, expiresAfter] = t.around('web.pos.expiresIn', 'seconds');
    const body = html`<main class="shell">
${header(i18n, t.t('web.brandSubtitle.pos'))}
<noscript><p class="card">${t.t('web.pos.noscript')}</p></noscript>
<section id="signin" class="card" hidden>
  <h1>${t.t('web.pos.pairTitle')}</h1>
  <div id="pair-panel">
    <p class="muted">${t.t('web.pos.pairIntro')}</p>
    <form id="pair-form" autocomplete="off">
      <label for="pairing-code">${t.t('web.pos.pairingCode')}</label>
      <input id="pairing-code" name="pairingCode" class="code" maxlength="32" placeholder="${t.t('web.pos.codeExample')}" autocapitalize="characters" spellcheck="false">
      <button id="pair-button" type="submit" class="primary big">${t.t('web.pos.pair')}</button>
    </form>
  </div>
  <div id="token-panel" hidden>
    <p class="muted">${t.t('web.pos.signInHint')}</p>
    <form id="signin-form" autocomplete="off">
      <label for="token">${t.t('web.pos.tokenLabel')}</label>
      <input id="token" name="token" type="password" required placeholder="term.…" spellcheck="false">
      <button type="submit" class="primary big">${t.t('web.pos.signIn')}</button>
    </form>
  </div>
  <p id="signin-error" class="error" role="alert"></p>
  <button id="show-advanced" type="button" class="link">${t.t('web.pos.advanced')}</button>
</section>
<section id="charge" class="card" hidden>
  <div class="row"><h1>${t.t('web.pos.newSale')}</h1><button id="signout" type="button" class="link">${t.t('web.pos.signOut')}</button></div>
  <p id="who" class="muted"></p>
  <form id="charge-form" autocomplete="off">
    <label for="amount">${t.t('web.pos.amount')}</label>
    <div class="amount-row">
      <input id="amount" name="amount" inputmode="decimal" required placeholder="${t.amount(0, 'USD')}">
      <select id="currency" name="currency" aria-label="${t.t('web.pos.currency')}">${currencies.map((code) => html`<option value="${code}">${code}</option>`)}</select>
    </div>
    <label for="description">${t.t('web.pos.description')}</label>
    <input id="description" name="description" maxlength="500" placeholder="${t.t('web.pos.optional')}">
    <button id="charge-button" type="submit" class="primary big">${t.t('web.pos.charge')}</button>
    <p id="charge-error" class="error" role="alert"></p>
  </form>
</section>
<section id="waiting" class="card center" hidden>
  <p id="waiting-description" class="muted"></p>
  <div id="waiting-amount" class="amount-display"></div>
  <img id="qr" class="qr" alt="${t.t('web.pos.qrAlt')}" width="232" height="232">
  <p class="status-line"><span class="pulse" aria-hidden="true"></span><span id="nfc-status">${t.t('web.pos.waitingTap')}</span></p>
  <p class="muted">${expiresBefore}<strong id="countdown">90</strong>${expiresAfter}</p>
  <details class="manual">
    <summary>${t.t('web.pos.typeTag')}</summary>
    <form id="manual-tap-form" autocomplete="off"><input id="manual-tag" placeholder="TG0A1B2C3D" spellcheck="false"><button type="submit" class="secondary">${t.t('web.pos.sendTap')}</button></form>
  </details>
  <button id="cancel" type="button" class="secondary">${t.t('web.pos.cancel')}</button>
  <p id="waiting-error" class="error" role="alert"></p>
</section>
<section id="result" class="card center" hidden>
  <div id="result-icon" class="result-icon" aria-hidden="true"></div>
  <h1 id="result-title"></h1>
  <div id="result-amount" class="amount-display"></div>
  <dl id="result-details" class="details"></dl>
  <button id="new-sale" type="button" class="primary big">${t.t('web.pos.newSale')}</button>
</section>
</main>`;
    return sendPage(reply, 200, page({ title: t.t('web.pos.documentTitle'), language: i18n.language, i18nData: i18n.scriptData, body, script: 'pos', data: { page: 'pos' } }));
  });

  app.get('/pos/qr.svg', { schema: { hide: true, querystring: Type.Object({ data: Type.String({ minLength: 1, maxLength: QR_TEXT_LENGTH_MAX }) }) } }, async (request, reply) => {
    const { data } = request.query;
    // Only our own pay links: the endpoint is not a general-purpose QR generator.
    if (!QR_PREFIXES.some((prefix) => data.startsWith(`${config.publicBaseUrl}${prefix}`))) {
      throw new ApiError(400, 'qr_data_not_allowed', 'Only this service\'s /tap/ and /pay/checkout/ links are rendered as QR codes');
    }
    const svg = await QRCode.toString(data, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#0b1f17', light: '#ffffff' } });
    // The drop-in shows a checkout's QR code in merchants' pages: another origin may embed it.
    return reply.headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300', 'cross-origin-resource-policy': 'cross-origin' }).type('image/svg+xml').send(svg);
  });

  app.get('/tap/:id', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const i18n = pageI18n(request);
    const { t } = i18n;
    if (UUID.test(id)) return sessionPage(reply, i18n, id);
    if (!normalizeTagId(id)) return sendPage(reply, 404, messagePage(i18n, t.t('web.unknownTag.title'), t.t('web.unknownTag.link')));
    try {
      const resolved = await resolveTag(db, id, context.now());
      return reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(withLanguage(resolved.redirectTo, requestedLanguage(request)), 302);
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 403) return sendPage(reply, 403, messagePage(i18n, t.t('web.tagDisabled.title'), t.t('web.tagDisabled.text')));
      if (error instanceof ApiError && error.statusCode === 404) return sendPage(reply, 404, messagePage(i18n, t.t('web.unknownTag.title'), t.t('web.unknownTag.text')));
      throw error;
    }
  });

  /** The page behind a session's tapUrl / qrPayload: the customer pays it with @handle and PIN. */
  async function sessionPage(reply: FastifyReply, i18n: PageI18n, id: string) {
    const { t } = i18n;
    const now = context.now();
    const found = (await findSession(db, id.toLowerCase(), { mode: 'test', merchantId: null }, now)) ?? (await findSession(db, id.toLowerCase(), { mode: 'live', merchantId: null }, now));
    if (!found) return sendPage(reply, 404, messagePage(i18n, t.t('web.paymentNotFound.title'), t.t('web.paymentNotFound.session')));
    // Read through the service: an overdue session shows as expired, never as payable.
    const session = await pos.get({ mode: found.mode, merchantId: found.merchant_id }, found.id);
    const merchant = await findMerchant(db, session.merchant_id);
    const amountLabel = t.money(session.amount, session.currency);
    return payRequestPage(reply, i18n, {
      subtitle: t.t(session.mode === 'test' ? 'web.brandSubtitle.payTest' : 'web.brandSubtitle.pay'),
      merchant: merchant ? { name: merchant.name, handle: merchant.handle } : undefined,
      amountLabel,
      description: session.description,
      statusWords: session.status === 'pending' ? null : SESSION_STATUSES.has(session.status) ? t.t(`web.sessionStatus.${session.status as 'completed'}`) : session.status,
      status: session.status,
      data: { page: 'session', 'session-id': session.id, mode: session.mode, 'amount-label': amountLabel, status: session.status },
    });
  }

  // A wallet holder makes an offline QR voucher to pay at a terminal without a connection.
  app.get('/wallet/offline-qr', hidden, async (request, reply) => {
    const i18n = pageI18n(request);
    const { t } = i18n;
    const body = html`<main class="shell">
${header(i18n, t.t('web.brandSubtitle.offlineQr'))}
${walletSignInCard(i18n, { title: 'web.offlineQr.title', intro: 'web.offlineQr.intro', button: 'web.offlineQr.signIn' })}
<section class="card" id="voucher-card" hidden>
  <div class="row"><p class="muted" id="signed-in-as"></p><button id="signout" type="button" class="link">${t.t('web.offlineQr.signOut')}</button></div>
  <a class="link" href="${withLanguage('/wallet', requestedLanguage(request))}" id="wallet-link">${t.t('web.wallet.back')}</a>
  <p class="reserved" id="reserved"></p>
  <form id="voucher-form">
    <label for="amount">${t.t('web.offlineQr.amount')}</label>
    <div class="amount-row"><input id="amount" name="amount" inputmode="decimal" required placeholder="${t.amount(0, 'USD')}" autocomplete="off"><span class="currency" id="voucher-currency"></span></div>
    <label for="hours">${t.t('web.offlineQr.validFor')}</label>
    <select id="hours" name="hours"><option value="4">${t.t('web.offlineQr.hours4')}</option><option value="24" selected>${t.t('web.offlineQr.hours24')}</option><option value="72">${t.t('web.offlineQr.days3')}</option></select>
    <button id="voucher-button" type="submit" class="primary big">${t.t('web.offlineQr.make')}</button>
    <p id="voucher-error" class="error" role="alert"></p>
  </form>
  <div id="voucher-result" class="center" hidden>
    <img id="voucher-qr" class="qr" alt="${t.t('web.offlineQr.qrAlt')}">
    <p class="amount-display" id="voucher-amount"></p>
    <p class="muted" id="voucher-expiry"></p>
    <button id="voucher-revoke" type="button" class="secondary">${t.t('web.offlineQr.revoke')}</button>
    <p id="voucher-status" class="muted" role="status"></p>
    <button id="voucher-new" type="button" class="link">${t.t('web.offlineQr.makeAnother')}</button>
  </div>
</section>
<section class="card" id="vouchers-card" hidden>
  <h2>${t.t('web.offlineQr.yours')}</h2>
  <p class="muted" id="vouchers-empty">${t.t('web.offlineQr.none')}</p>
  <ul class="vouchers" id="vouchers"></ul>
  <p id="vouchers-error" class="error" role="alert"></p>
</section>
</main>`;
    return sendPage(reply, 200, page({ title: t.t('web.offlineQr.documentTitle'), language: i18n.language, i18nData: i18n.scriptData, body, script: 'offline-qr' }));
  });

  // The wallet holder's page: top-ups from her phone, withdrawals, recent activity (docs/wallet-money.md).
  app.get('/wallet', hidden, async (request, reply) => {
    const i18n = pageI18n(request);
    const body = walletPageBody(i18n, header(i18n, i18n.t.t('web.brandSubtitle.wallet')), withLanguage('/wallet/offline-qr', requestedLanguage(request)));
    return sendPage(reply, 200, page({ title: i18n.t.t('web.wallet.documentTitle'), language: i18n.language, i18nData: i18n.scriptData, body, script: 'wallet' }));
  });

  /** The page behind a checkout session's QR code: the customer pays it with @handle and PIN. */
  app.get('/pay/checkout/:id', hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const i18n = pageI18n(request);
    const { t } = i18n;
    let session;
    try {
      session = await checkout.getPublic(id);
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 404) return sendPage(reply, 404, messagePage(i18n, t.t('web.paymentNotFound.title'), t.t('web.paymentNotFound.checkout')));
      throw error;
    }
    return payRequestPage(reply, i18n, {
      subtitle: t.t(session.mode === 'test' ? 'web.brandSubtitle.checkoutTest' : 'web.brandSubtitle.checkout'),
      merchant: { name: session.merchant_name, handle: session.merchant_handle },
      amountLabel: t.money(session.amount, session.currency),
      description: session.description,
      statusWords: session.status === 'open' ? null : CHECKOUT_STATUSES.has(session.status) ? t.t(`web.checkoutStatus.${session.status as 'paid'}`) : session.status,
      status: session.status,
      data: { page: 'checkout', 'session-id': session.id, mode: session.mode, status: session.status },
    });
  });

  app.get('/pay/:handle', hidden, async (request, reply) => {
    const { handle: raw } = request.params as { handle: string };
    const { source } = request.query as { source?: string };
    const i18n = pageI18n(request);
    const { t } = i18n;
    if (!HANDLE.test(raw)) return sendPage(reply, 404, messagePage(i18n, t.t('web.unknownHandle.title'), t.t('web.unknownHandle.any')));
    const handle = raw.replace(/^@/, '').toLowerCase();
    const modes: Mode[] = ['test', 'live'];
    const wallets = (await Promise.all(modes.map((mode) => findWallet(db, handle, mode)))).filter((wallet) => wallet !== undefined);
    const wallet = wallets[0];
    if (!wallet) return sendPage(reply, 404, messagePage(i18n, t.t('web.unknownHandle.title'), t.t('web.unknownHandle.named', { handle: displayHandle(handle) })));
    const data: Record<string, string> = { page: 'handle', to: handle, currency: wallet.currency };
    // A handle that exists in one mode only pins the payer's sign-in to that mode.
    if (wallets.length === 1) data.mode = wallet.mode;
    const body = html`<main class="shell">
${header(i18n, t.t(wallets.length === 1 && wallet.mode === 'test' ? 'web.brandSubtitle.payTest' : 'web.brandSubtitle.pay'))}
<section class="card" id="handle-card">
  ${source === 'nfc' ? html`<p class="badge">${t.t('web.pay.tappedNfc')}</p>` : ''}
  <p class="muted">${t.t('web.pay.pay')}</p>
  <h1 class="recipient">${wallet.display_name ?? displayHandle(handle)}</h1>
  <p class="handle">${displayHandle(handle)}</p>
  <form id="pay-form" autocomplete="on">
    <label for="amount">${t.t('web.pay.amount')}</label>
    <div class="amount-row"><input id="amount" name="amount" inputmode="decimal" required placeholder="${t.amount(0, wallet.currency)}" autocomplete="off"><span class="currency">${wallet.currency}</span></div>
    <label for="note">${t.t('web.pay.note')}</label>
    <input id="note" name="note" maxlength="140" placeholder="${t.t('web.pay.optional')}" autocomplete="off">
    <label for="handle">${t.t('web.pay.handle')}</label>
    <input id="handle" name="username" autocomplete="username" required placeholder="${t.t('web.pay.handlePlaceholder')}" spellcheck="false" autocapitalize="none">
    <label for="pin">${t.t('web.pay.pin')}</label>
    <input id="pin" name="pin" type="password" inputmode="numeric" pattern="[0-9]{4,8}" autocomplete="current-password" required placeholder="${t.t('web.pay.pinPlaceholder')}">
    <button id="pay-button" type="submit" class="primary big">${t.t('web.pay.pay')}</button>
    <p id="pay-error" class="error" role="alert"></p>
  </form>
  ${payResult('center')}
</section>
</main>`;
    return sendPage(reply, 200, page({ title: t.t('web.pay.documentTitleHandle', { handle: displayHandle(handle) }), language: i18n.language, i18nData: i18n.scriptData, body, script: 'pay', data }));
  });
}
