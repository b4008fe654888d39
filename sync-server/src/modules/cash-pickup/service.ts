// Cash pickup on Tapline's own agent network (docs/payouts.md "Cash pickup"). No provider Tapline
// has an adapter for pays cash pickup the way our rail needs it (Flutterwave v3's transfers API,
// as its Node SDK publishes it, has no cash pickup payload: rails/flutterwave/destinations.ts), so
// a live payment on the cash_pickup rail goes to the provider `agents`, which is Tapline itself:
//
// - submit: the payment's money already sits in rail_clearing:agents (its debit); a pickup row is
//   written, to expire CASH_PICKUP_HOURS later. The payment is `processing`.
// - the sender asks for the one-time code (POST /api/payments/{id}/pickup-code) and passes it to
//   the recipient: 8 random digits shown once, stored as a slow hash like a PIN; a new code
//   replaces the last.
// - an agent of the recipient's country pays her the cash against her phone and the code
//   (POST /api/agent/cash-pickups): in one transaction the pickup ends `paid`, the payment
//   completes (payment.completed) and its settlement moves the money from rail_clearing:agents into
//   the agent's float, plus the platform's commission (AGENT_CASH_OUT_COMMISSION_PCT) from `fees`.
// - a wrong code counts against the phone's active pickups: after 5 they refuse codes for 15 minutes.
// - not collected before its expiry: the scheduler's poll ends the pickup `expired` and answers
//   failed, so the payments module refunds the sender (payment.failed), as any failed payout.
import { CASH_PICKUP_CODE_ATTEMPTS_MAX, CASH_PICKUP_CODE_LOCK_MINUTES } from '@tapline/shared/limits';
import { randomInt } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { percentOf, toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { hashPin, verifyPin } from '../../auth/secrets.ts';
import type { Database } from '../../db/database.ts';
import { ApiError, badRequest, conflict, forbidden, gone, notFound, retryAfterSeconds, unprocessable } from '../../http/errors.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { accountBalance, transfer } from '../../ledger/ledger.ts';
import { type PayoutProvider, type PayoutRequest, type PayoutUpdate, type Rail, RAIL_INFO, completePaymentInto, findPayment } from '../payments/index.ts';
import { findWalletById } from '../wallets/index.ts';
import {
  type CashPickupRow,
  clearPickupAttempts,
  findPickupOfPayment,
  insertCashPickup,
  lockPickups,
  markPickupExpired,
  markPickupPaid,
  reservePickupAttempt,
  setPickupCode,
} from './store.ts';

/** The provider name of the agent network: payments.provider, and its clearing account rail_clearing:agents. */
export const AGENT_NETWORK = 'agents';
const CODE_DIGITS = 8;

/** A pickup's id, derived from its payment's so a repeated submit finds the same one. */
export function pickupIdOf(paymentId: string): string {
  return `pku_${paymentId.replace(/^pay_/, '')}`;
}

/** "1234 5678", "12345678" or "1234-5678" as the recipient reads it out: the 8 digits, or null. */
function normalisedCode(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  return new RegExp(`^\\d{${CODE_DIGITS}}$`).test(digits) ? digits : null;
}

/**
 * A phone as the agent types it, in international form (+ and the country code; spaces, dashes,
 * dots, brackets and a trunk zero such as "+234 (0) 803..." allowed): the E.164 number, as the
 * payment stored the recipient's (payments/receiver.ts, libphonenumber-js), or null when it is not
 * a valid number.
 */
function normalisedPhone(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('+')) return null;
  const parsed = parsePhoneNumberFromString(trimmed);
  return parsed?.isValid() ? parsed.number : null;
}

function failureOf(row: CashPickupRow): string {
  return `Not collected at an agent before ${row.expires_at.toISOString()}: the money went back to the sender`;
}

function updateOf(row: CashPickupRow): PayoutUpdate {
  if (row.status === 'paid') return { status: 'completed', providerReference: row.id };
  if (row.status === 'expired') return { status: 'failed', providerReference: row.id, failureReason: failureOf(row) };
  return { status: 'processing', providerReference: row.id, estimatedArrival: row.expires_at };
}

/**
 * The agent network as the payment scheduler's payout provider: cash_pickup in the rail's
 * countries, both modes' agents (a live payment only reaches it: test mode follows the sandbox).
 */
export function agentNetworkProvider(options: { db: Database; now: () => Date; hours: number }): PayoutProvider {
  const { db, now } = options;
  async function state(request: PayoutRequest): Promise<PayoutUpdate | undefined> {
    const row = await findPickupOfPayment(db, request.paymentId);
    if (!row) return undefined;
    if (row.status === 'active' && row.expires_at.getTime() <= now().getTime()) {
      // Ended here, before the answer that refunds the sender: no agent can pay it after this.
      const expired = await markPickupExpired(db, row.id, now());
      return updateOf(expired ?? (await findPickupOfPayment(db, request.paymentId))!);
    }
    return updateOf(row);
  }
  return {
    name: AGENT_NETWORK,
    supports: (rail: Rail, country: string) => rail === 'cash_pickup' && RAIL_INFO.cash_pickup.countries.includes(country),
    async submit(request) {
      const payment = await findPayment(db, request.paymentId);
      if (!payment) throw new Error(`payment ${request.paymentId} vanished`);
      const at = now();
      const row = await insertCashPickup(db, {
        id: pickupIdOf(request.paymentId),
        payment_id: request.paymentId,
        mode: payment.mode,
        amount: request.destinationAmount,
        currency: request.destinationCurrency,
        country: request.toCountry,
        phone: request.receiver.phone ?? '',
        created_at: at,
        expires_at: new Date(at.getTime() + options.hours * 3_600_000),
      });
      return updateOf(row);
    },
    poll: async (request) => (await state(request)) ?? { status: 'processing' },
    lookup: state,
  };
}

/** The agent as its session names it. */
export interface PickupAgent {
  agentId: string;
  walletId: string;
  mode: CashPickupRow['mode'];
}

export function cashPickupService(context: AppContext) {
  const { db } = context;

  /** The sender's side: a new one-time code for its payment's pickup, shown this once. */
  async function issueCode(caller: { merchantId: string; mode: CashPickupRow['mode'] }, paymentId: string) {
    const payment = await findPayment(db, paymentId);
    if (!payment || payment.merchant_id !== caller.merchantId || payment.mode !== caller.mode) throw notFound('payment_not_found', `No payment ${paymentId}`);
    if (payment.rail !== 'cash_pickup' || payment.provider !== AGENT_NETWORK) {
      throw unprocessable('not_a_cash_pickup', `Payment ${paymentId} is not collected at Tapline's agents (rail ${payment.rail}${payment.mode === 'test' ? ', test mode: the sandbox pays it' : ''})`);
    }
    const pickup = await findPickupOfPayment(db, paymentId);
    if (!pickup) throw conflict('cash_pickup_not_ready', `Payment ${paymentId} is still being sent to the agent network: ask again in a moment`);
    const now = context.now();
    const code = Array.from({ length: CODE_DIGITS }, () => randomInt(10)).join('');
    const updated = await setPickupCode(db, pickup.id, await hashPin(code), now);
    if (!updated) {
      const current = (await findPickupOfPayment(db, paymentId))!;
      throw conflict('cash_pickup_ended', current.status === 'paid' ? `The cash of payment ${paymentId} was collected already` : `The pickup of payment ${paymentId} expired at ${current.expires_at.toISOString()}: the money goes back to the sender`);
    }
    return { ...pickupRecord(updated), code: `${code.slice(0, 4)} ${code.slice(4)}` };
  }

  /**
   * The agent's side: the recipient's phone and code. Every attempt counts against the phone's
   * active pickups in the agent's country (5 wrong ones lock them 15 minutes); the right code pays
   * the pickup once, in one transaction with its payment's completion and the money's move.
   */
  async function payOut(agent: PickupAgent, body: { phone: string; code: string }) {
    const code = normalisedCode(body.code);
    if (code === null) throw badRequest('cash_pickup_code_invalid', 'A pickup code is 8 digits, such as 1234 5678');
    const phone = normalisedPhone(body.phone);
    if (phone === null) throw badRequest('phone_invalid', 'The recipient\'s phone must be in E.164 form: + then country code and number, e.g. +2348012345678');
    const float = await findWalletById(db, agent.walletId);
    if (!float) throw notFound('wallet_not_found', 'The agent\'s wallet was not found');
    const now = context.now();
    const candidates = await reservePickupAttempt(db, phone, agent.mode, float.country, now);
    const locked = candidates.filter((row) => row.locked_until && row.locked_until.getTime() > now.getTime());
    if (locked.length > 0) {
      const until = new Date(Math.max(...locked.map((row) => row.locked_until!.getTime())));
      throw new ApiError(429, 'pickup_attempts_exceeded', `Too many wrong codes for this phone: its pickups refuse codes until ${until.toISOString()}`, {
        headers: { 'retry-after': String(retryAfterSeconds(until, now)) },
      });
    }
    let match: CashPickupRow | undefined;
    for (const row of candidates) if (!match && (await verifyPin(code, row.code_hash!))) match = row;
    const ids = candidates.map((row) => row.id);
    if (!match) {
      const spent = candidates.filter((row) => row.failed_attempts >= CASH_PICKUP_CODE_ATTEMPTS_MAX).map((row) => row.id);
      if (spent.length > 0) await lockPickups(db, spent, new Date(now.getTime() + CASH_PICKUP_CODE_LOCK_MINUTES * 60_000));
      throw forbidden('wrong_pickup_code', `Wrong code, or no cash waiting for ${phone} in ${float.country}`);
    }
    await clearPickupAttempts(db, ids);
    if (match.expires_at.getTime() <= now.getTime()) throw gone('cash_pickup_expired', `This pickup expired at ${match.expires_at.toISOString()}: the money goes back to the sender`);
    if (match.currency !== float.currency) throw unprocessable('currency_mismatch', `This pickup pays ${match.currency}; the agent's float is in ${float.currency}`);
    const pickup = match;
    const commission = percentOf(pickup.amount, context.config.agentCashOutCommissionPercent, 'down');
    const result = await db.transaction(async (tx) => {
      const paid = await markPickupPaid(tx, pickup.id, agent.agentId, commission, now);
      if (!paid) throw conflict('cash_pickup_ended', 'This pickup was paid or expired a moment ago');
      const into = walletAccount(agent.walletId, pickup.currency);
      const completed = await completePaymentInto(tx, pickup.payment_id, AGENT_NETWORK, now, `Collected in cash at agent ${agent.agentId} (pickup ${pickup.id})`, into);
      if (!completed) throw conflict('cash_pickup_ended', 'This pickup\'s payment is no longer waiting to be paid out');
      if (commission > 0) {
        await transfer(tx, {
          id: `${pickup.id}:commission`,
          mode: pickup.mode,
          kind: 'cash_pickup_commission',
          legs: [{ account: systemAccount('fees', pickup.currency), amount: -commission }, { account: into, amount: commission }],
          metadata: { agentId: agent.agentId, pickupId: pickup.id, paymentId: pickup.payment_id },
        });
      }
      return { paid, receiverName: completed.receiver_name, floatBalance: await accountBalance(tx, into, agent.mode) };
    });
    return {
      ...pickupRecord(result.paid),
      receiverName: result.receiverName,
      floatBalance: toMajor(result.floatBalance, pickup.currency),
    };
  }

  return { issueCode, payOut };
}

/** A pickup as the sender and the agent see it (never its code, but once when it is made). */
export function pickupRecord(row: CashPickupRow) {
  return {
    id: row.id,
    paymentId: row.payment_id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    country: row.country,
    phone: row.phone,
    expiresAt: row.expires_at.toISOString(),
    commission: toMajor(row.commission, row.currency),
    ...(row.ended_at ? { endedAt: row.ended_at.toISOString() } : {}),
    ...(row.agent_id ? { agentId: row.agent_id } : {}),
  };
}
