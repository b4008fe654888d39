import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/principal.ts';
import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed-app.ts';
import {
  CreateVoucherBody,
  ErrorBody,
  ListOf,
  OfflineLimitsBody,
  OfflineLimitsRecord,
  TerminalSettingsRecord,
  OfflinePaymentListQuery,
  OfflinePaymentRecord,
  OfflineQrKeysResponse,
  RedeemVoucherBody,
  VoucherListQuery,
  VoucherRecord,
} from '@tapline/shared/schemas';
import { toMajor, toMinor } from '@tapline/shared/money';
import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import type { AppContext } from '../../context.ts';
import { Poller } from '../../jobs/poller.ts';
import { principalAs, principalOf } from '../../auth/hooks.ts';
import { derivedId, idempotentId } from '../../http/idempotency.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { requireWallet } from '../wallets/index.ts';
import { publicKeys } from './keys.ts';
import { terminalOfflineLimits } from './limits.ts';
import { offlineSettlement, paymentRecord } from './settlement.ts';
import { findOfflinePayment, findTerminalForSync, listOfflinePayments } from './store.ts';
import { setTerminalLanguage, setTerminalName, setTerminalOfflineLimits, setTerminalTipping } from '../terminals/index.ts';
import { releaseExpiredVouchers, voucherService } from './vouchers.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });
const walletOnly = { auth: ['wallet'] } as const;
const merchantOrTerminal = { auth: ['merchant', 'terminal'] } as const;

const VOUCHER_DESCRIPTION = `Offline QR (rail offline_qr): the wallet holder reserves an amount from their wallet and gets a
voucher signed by the server (Ed25519), shown as a QR code (qrPayload, TLQ1....). A terminal verifies it with the keys of
GET /api/offline/qr/keys (it receives them in every sync) even without a connection, takes one payment up to the amount,
and settles it when it syncs; what the payment did not take goes back to the wallet then. The money is reserved, so an
offline payment never overdraws a wallet. A voucher pays once (the first settlement wins). An unused voucher's money goes
back OFFLINE_QR_SETTLEMENT_GRACE_HOURS (72) after it expires, or at once when the holder revokes it. Only a SHA-256 of the
voucher text is stored; its holder can be shown it again while it is active (GET).`;

/** What a terminal's tipping answers: off with the usual suggestions when never set. */
export function tippingOf(stored: { mode: 'off' | 'before' | 'after'; percentages: number[] } | null) {
  return stored ?? { mode: 'off' as const, percentages: [10, 15, 20] };
}

/** Offline QR vouchers, offline payments (as settled from terminals' syncs), and terminals' offline limits. */
export async function offlineRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  const vouchers = voucherService(context);
  const settlement = offlineSettlement(context);

  app.get('/api/offline/qr/keys', {
    schema: { tags: ['offline'], summary: 'The public keys that sign offline QR vouchers', response: { 200: OfflineQrKeysResponse, 429: ErrorBody } },
  }, async () => ({ keys: await publicKeys(db) }));

  app.post('/api/offline/qr', {
    config: { ...walletOnly, idempotency: 'optional', idempotencyRedact: (body: unknown) => ({ ...(body as object), qrPayload: undefined }) },
    schema: {
      tags: ['offline'],
      summary: 'Make an offline QR voucher: reserve an amount of the wallet for one offline payment',
      description: `${VOUCHER_DESCRIPTION} 422 insufficient_funds when the wallet has less. A replay of an Idempotency-Key answers the voucher without qrPayload: GET it.`,
      body: CreateVoucherBody,
      response: { 201: VoucherRecord, ...errors, 409: ErrorBody, 422: ErrorBody },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'wallet');
    const record = await vouchers.create(principal, request.body, derivedId(request, 'oqr', 'oqr'));
    return reply.status(201).send(record);
  });

  app.get('/api/offline/qr', {
    config: walletOnly,
    schema: { tags: ['offline'], summary: 'The holder\'s offline QR vouchers, newest first', querystring: VoucherListQuery, response: { 200: ListOf(VoucherRecord), ...errors } },
  }, async (request) => {
    const query = request.query;
    return vouchers.list(principalAs(request, 'wallet'), query.status, query.limit ?? 20, query.offset ?? 0);
  });

  app.get('/api/offline/qr/:id', {
    config: walletOnly,
    schema: { tags: ['offline'], summary: 'One voucher, with its qrPayload while it is active', params: IdParams, response: { 200: VoucherRecord, ...errors } },
  }, async (request) => vouchers.get(principalAs(request, 'wallet'), request.params.id));

  app.get('/api/offline/qr/:id/qr.svg', {
    config: walletOnly,
    schema: {
      tags: ['offline'],
      summary: 'An active voucher as a QR code (SVG), for its holder',
      params: IdParams,
      response: { 200: Type.String({ description: 'image/svg+xml' }), ...errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const record = await vouchers.get(principalAs(request, 'wallet'), request.params.id);
    if (record.qrPayload === undefined) throw conflict('voucher_not_active', `The voucher is ${record.status}: only an active voucher has a QR code`);
    // Error correction M keeps the ~220-character voucher a 49x49 code: easy for a scanner at a counter.
    const svg = await QRCode.toString(record.qrPayload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).type('image/svg+xml').send(svg);
  });

  app.post('/api/offline/qr/:id/revoke', {
    config: walletOnly,
    schema: {
      tags: ['offline'],
      summary: 'Revoke an active voucher: its money goes back to the wallet at once',
      description: 'A terminal that took this voucher offline before it heard of the revocation has its payment declined voucher_revoked when it syncs (the merchant\'s offline limits bound that risk).',
      params: IdParams,
      response: { 200: VoucherRecord, ...errors, 409: ErrorBody },
    },
  }, async (request) => vouchers.revoke(principalAs(request, 'wallet'), request.params.id));

  app.post('/api/offline/qr/redeem', {
    config: { ...merchantOrTerminal, idempotency: 'optional' },
    schema: {
      tags: ['offline'],
      summary: 'Take a payment from an offline QR voucher while online',
      description: `The same settlement as a terminal's sync, answered at once. 400 voucher_malformed / voucher_signature_invalid / voucher_unknown;
409 voucher_already_used / voucher_revoked; 410 voucher_expired; 422 amount_exceeds_voucher, voucher_currency_mismatch. A declined
redeem stores nothing. paymentId (a UUID of yours) makes retries safe; without it one is made.`,
      body: RedeemVoucherBody,
      response: { 200: OfflinePaymentRecord, ...errors, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody },
    },
  }, async (request) => {
    const principal = merchantOrTerminalOf(request);
    const body = request.body;
    const wallet = await requireWallet(db, principal.handle, principal.mode);
    const currency = supportedCurrency(body.currency ?? wallet.currency);
    const seed = idempotentId(request, 'oqr-redeem');
    const id = body.paymentId?.toLowerCase() ?? (seed ? uuidFromSeed(seed) : randomUUID());
    const row = await settlement.redeem(
      { merchantId: principal.merchantId, merchantWalletId: wallet.id, mode: principal.mode, terminalId: principal.kind === 'terminal' ? principal.terminalId : null },
      {
        id,
        kind: 'qr',
        voucher: body.voucher,
        amountMinor: toMinor(body.amount, currency),
        currency,
        description: body.description ?? '',
        capturedAt: context.now().toISOString(),
      },
      currency,
    );
    return paymentRecord(row);
  });

  app.get('/api/offline/payments', {
    config: merchantOrTerminal,
    schema: {
      tags: ['offline'],
      summary: 'Offline payments settled for the merchant (a terminal sees its own), newest first',
      querystring: OfflinePaymentListQuery,
      response: { 200: ListOf(OfflinePaymentRecord), ...errors },
    },
  }, async (request) => {
    const principal = merchantOrTerminalOf(request);
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const terminalId = principal.kind === 'terminal' ? principal.terminalId : query.terminalId;
    const page = await listOfflinePayments(db, { merchantId: principal.merchantId, mode: principal.mode, terminalId, status: query.status }, limit, offset);
    return { data: page.rows.map(paymentRecord), total: page.total, limit, offset };
  });

  app.get('/api/offline/payments/:id', {
    config: merchantOrTerminal,
    schema: { tags: ['offline'], summary: 'One offline payment', params: IdParams, response: { 200: OfflinePaymentRecord, ...errors } },
  }, async (request) => {
    const principal = merchantOrTerminalOf(request);
    const { id } = request.params;
    const row = /^[0-9a-fA-F-]{36}$/.test(id) ? await findOfflinePayment(db, id.toLowerCase()) : undefined;
    const visible = row && row.merchant_id === principal.merchantId && row.mode === principal.mode && (principal.kind !== 'terminal' || row.terminal_id === principal.terminalId);
    if (!visible) throw notFound('offline_payment_not_found', `No offline payment ${id}`);
    return paymentRecord(row);
  });

  app.get('/api/merchant/terminals/:id/offline-limits', {
    config: { auth: ['merchant'] },
    schema: { tags: ['offline'], summary: 'What a terminal may take offline (major units of the merchant currency)', params: IdParams, response: { 200: OfflineLimitsRecord, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    return limitsRecord(request.params.id, principal.merchantId, principal.mode);
  });

  app.patch('/api/merchant/terminals/:id', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['offline'],
      summary: 'Set a terminal\'s offline limits, its language, its name and its tipping',
      description: `offlineLimits defaults: OFFLINE_PER_PAYMENT_USD (20) and OFFLINE_TOTAL_USD (200) converted into the merchant currency at the mid
rate and rounded down to whole units and two significant figures (NGN 26,523.28 becomes 26,000), OFFLINE_MAX_AGE_HOURS (72). language: en, fr, pt or sw (default en), the kiosk's default language (the cashier may switch on
screen) and its receipts'. name: 1 to 80 characters, trimmed (the dashboard renames a terminal). tipping: {mode: off | before | after,
percentages: 1 to 3 whole percents} (default off): whether the kiosk asks for a tip, and what it suggests. A connected terminal receives
the changes at once in a new sync hello.`,
      params: IdParams,
      body: OfflineLimitsBody,
      response: { 200: TerminalSettingsRecord, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const terminal = await findTerminalForSync(db, id);
    if (!terminal || terminal.merchant_id !== principal.merchantId || terminal.mode !== principal.mode) throw notFound('terminal_not_found', `No terminal ${id}`);
    const { offlineLimits, language, name, tipping } = request.body;
    if (offlineLimits === undefined && language === undefined && name === undefined && tipping === undefined) throw badRequest('validation_failed', 'Send offlineLimits, language, name, tipping or several');
    if (offlineLimits !== undefined) {
      const minor = (value: number | null | undefined) => (value === undefined || value === null ? value : value === 0 ? 0 : toMinor(value, terminal.merchant_currency));
      await setTerminalOfflineLimits(db, id, principal.merchantId, principal.mode, {
        perPaymentMax: minor(offlineLimits.perPayment),
        totalMax: minor(offlineLimits.total),
        maxAgeSeconds: offlineLimits.maxAgeHours === undefined || offlineLimits.maxAgeHours === null ? offlineLimits.maxAgeHours : offlineLimits.maxAgeHours * 3600,
      });
    }
    if (language !== undefined) await setTerminalLanguage(db, id, principal.merchantId, principal.mode, language);
    if (name !== undefined) await setTerminalName(db, id, principal.merchantId, principal.mode, name.trim());
    if (tipping !== undefined) await setTerminalTipping(db, id, principal.merchantId, principal.mode, { mode: tipping.mode, percentages: [...tipping.percentages].sort((a, b) => a - b) });
    context.sync.terminalChanged(id);
    const saved = await findTerminalForSync(db, id);
    return { ...(await limitsRecord(id, principal.merchantId, principal.mode)), language: language ?? terminal.language, name: name?.trim() ?? terminal.name, tipping: tippingOf(saved?.tipping ?? null) };
  });

  async function limitsRecord(terminalId: string, merchantId: string, mode: string) {
    const terminal = await findTerminalForSync(db, terminalId);
    if (!terminal || terminal.merchant_id !== merchantId || terminal.mode !== mode) throw notFound('terminal_not_found', `No terminal ${terminalId}`);
    const limits = await terminalOfflineLimits(context, terminal);
    return {
      terminalId,
      currency: limits.currency,
      perPayment: toMajor(limits.perPaymentMaxMinor, limits.currency),
      total: toMajor(limits.totalMaxMinor, limits.currency),
      maxAgeHours: limits.maxAgeSeconds / 3600,
    };
  }
}

/** The caller of a route whose config.auth admits merchants and terminals only. */
function merchantOrTerminalOf(request: FastifyRequest): Extract<Principal, { kind: 'merchant' | 'terminal' }> {
  const principal = principalOf(request);
  if (principal.kind !== 'merchant' && principal.kind !== 'terminal') throw notFound('route_not_found', 'Merchants and terminals only');
  return principal;
}

/** A UUID v4-shaped id derived from an idempotency seed, so a retried redeem settles the same payment. */
function uuidFromSeed(seed: string): string {
  const hex = seed.slice(seed.indexOf(':') + 1).padEnd(32, '0').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Gives back the money of expired, unused vouchers (tests call releaseExpiredVouchers directly). */
export function startOfflineJobs(app: TypedApp, context: AppContext): void {
  if (context.config.offlineQrJobIntervalMs === 0) return;
  const poller = new Poller(() => releaseExpiredVouchers(context), context.config.offlineQrJobIntervalMs, (error) => app.log.error({ err: error }, 'offline QR release failed'));
  app.addHook('onReady', async () => poller.start());
  app.addHook('onClose', async () => poller.stop());
}
