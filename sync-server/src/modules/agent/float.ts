// An agent funds and settles its float through the rails (docs/agents.md, "Funding and settling the
// float"). The float is the agent's wallet, so nothing here moves money on its own:
//
// - A float top-up is a mobile-money collection (modules/collections, purpose agent_float_top_up):
//   the same sandbox magic numbers, providers, callbacks, polls and expiry as a holder's wallet
//   top-up, credited to the agent's wallet once, under the collection's row lock, when the provider
//   confirms (one ledger transfer, kind agent_float_top_up: rail clearing -> float, fee -> fees).
// - A float settlement is a payment of kind agent_settlement (modules/payments): the float is
//   debited amount + fee in the transaction that records it, the payment scheduler pays it out to
//   the agent's registered settlement account (checked like a merchant's: modules/payouts), never
//   twice, and the payments module's refund or reversal transfer puts it back when it fails or is
//   reversed. Live, the money in flight sits in its provider's rail clearing account (migration 044).
//
// The agent hears of each end in its wallet's notifications, written in the transaction that ends it.
import { currencyOfCountry } from '@tapline/shared/countries';
import { percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { CreateSettlementAccountBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { constantTimeEqual, newId, sha256Hex } from '../../auth/secrets.ts';
import { badRequest, forbidden, notFound, unprocessable } from '../../http/errors.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { accountBalance } from '../../ledger/ledger.ts';
import { type CollectionRow, maskPhone, onCollectionOutcome } from '../collections/index.ts';
import { type NewPayment, type PaymentRow, RAIL_INFO, onPaymentOutcome, recordPayment } from '../payments/index.ts';
import { SANDBOX_PAYOUT_SUFFIXES, checkSettlementDestination, maskAccountNumber, railOf, settlementReceiver } from '../payouts/index.ts';
import { type WalletRow, findAgent, findWalletById, insertWalletNotification, limitFromUsd, lockWalletRow } from '../wallets/index.ts';
import { findWithdrawal, topUpCaller, topUpRecord, withdrawalRecord, withdrawnSince } from '../wallet-money/index.ts';
import type { CashAgent } from './cash.ts';
import { type AgentSettlementAccountRow, findAgentSettlementAccount, upsertAgentSettlementAccount } from './float-store.ts';

/** The limits count the last 24 hours, whatever the clock reads. */
const DAY_MS = 24 * 3600_000;

async function floatWallet(context: AppContext, agent: Pick<CashAgent, 'walletId' | 'mode'>): Promise<WalletRow> {
  const wallet = await findWalletById(context.db, agent.walletId);
  if (!wallet || wallet.mode !== agent.mode) throw notFound('wallet_not_found', 'The agent\'s wallet was not found');
  return wallet;
}

function floatCurrency(wallet: WalletRow, given: string | undefined): string {
  const currency = (given ?? wallet.currency).trim().toUpperCase();
  if (currency !== wallet.currency) throw badRequest('currency_not_accepted', `This float moves money in ${wallet.currency} only, not ${currency.slice(0, 8)}`);
  return currency;
}

export function settlementAccountRecord(row: AgentSettlementAccountRow) {
  return {
    type: row.type,
    country: row.country,
    currency: row.currency,
    bankCode: row.bank_code,
    accountNumber: row.account_number ? maskAccountNumber(row.account_number) : null,
    phone: row.phone ? maskPhone(row.phone) : null,
    operator: row.operator,
    accountName: row.account_name,
    nameSource: row.name_source,
    registeredAt: row.registered_at.toISOString(),
  };
}

export function agentFloatService(context: AppContext) {
  const { db, config } = context;
  const topUpFee = (amount: number) => percentOf(amount, config.agentFloatTopUpFeePercent, 'up');
  const settlementFee = (amount: number) => percentOf(amount, config.agentSettlementFeePercent, 'up');

  // Top-ups ------------------------------------------------------------------------------------

  async function quoteTopUp(agent: CashAgent, query: { amount: number; currency?: string | undefined }) {
    const wallet = await floatWallet(context, agent);
    const currency = floatCurrency(wallet, query.currency);
    const amount = toMinor(query.amount, currency);
    const fee = topUpFee(amount);
    return {
      amount: toMajor(amount, currency),
      fee: toMajor(fee, currency),
      total: toMajor(amount + fee, currency),
      currency,
      feePercent: config.agentFloatTopUpFeePercent,
      provider: context.collections.topUpProvider(topUpCaller(wallet)) ?? null,
      floatBalance: toMajor(await accountBalance(db, walletAccount(wallet.id, currency), wallet.mode), currency),
    };
  }

  /** Asks the agent's phone for amount + fee; the float is credited amount when the provider confirms. The id derives from the Idempotency-Key. */
  async function createTopUp(agent: CashAgent, body: { amount: number; currency: string; phone: string }, id: string): Promise<CollectionRow> {
    const wallet = await floatWallet(context, agent);
    const currency = floatCurrency(wallet, body.currency);
    const amountMinor = toMinor(body.amount, currency);
    return context.collections.createTopUp(topUpCaller(wallet), { amountMinor, feeMinor: topUpFee(amountMinor), currency, phone: body.phone }, id, 'agent_float_top_up');
  }

  async function getTopUp(agent: CashAgent, id: string): Promise<CollectionRow> {
    return context.collections.getTopUp(agent, id, 'agent_float_top_up');
  }

  // The settlement account -----------------------------------------------------------------------

  /** An administrator registers (or replaces) where the agent's float is settled; checked and named like a merchant's settlement account. */
  async function registerSettlementAccount(agentId: string, body: CreateSettlementAccountBody): Promise<AgentSettlementAccountRow> {
    const agent = await findAgent(db, agentId);
    if (!agent) throw notFound('agent_not_found', `No agent ${agentId.slice(0, 80)}`);
    const wallet = await floatWallet(context, { walletId: agent.wallet_id, mode: agent.mode });
    const checked = await checkSettlementDestination(context, agent.mode, body);
    if (checked.currency !== wallet.currency) {
      throw badRequest('destination_currency_mismatch', `A ${checked.country} account is paid in ${checked.currency}; this agent's float is in ${wallet.currency}`);
    }
    return upsertAgentSettlementAccount(db, { agent_id: agent.id, ...checked, registered_at: context.now() });
  }

  async function requireSettlementAccount(agentId: string): Promise<AgentSettlementAccountRow> {
    const account = await findAgentSettlementAccount(db, agentId);
    if (!account) throw unprocessable('no_settlement_account', 'This agent has no settlement account yet: an administrator registers it (PUT /api/admin/agents/{agentId}/settlement-account)');
    return account;
  }

  // Settlements ----------------------------------------------------------------------------------

  async function limits(currency: string) {
    return { perSettlement: await limitFromUsd(context, config.agentSettlementMaxUsd, currency), daily: await limitFromUsd(context, config.agentSettlementDailyUsd, currency) };
  }

  async function quoteSettlement(agent: CashAgent, query: { amount: number; currency?: string | undefined }) {
    const wallet = await floatWallet(context, agent);
    const currency = floatCurrency(wallet, query.currency);
    const amount = toMinor(query.amount, currency);
    const fee = settlementFee(amount);
    const limit = await limits(currency);
    const used = await withdrawnSince(db, wallet.id, currency, new Date(context.now().getTime() - DAY_MS), 'agent_settlement');
    const account = await findAgentSettlementAccount(db, agent.agentId);
    return {
      amount: toMajor(amount, currency),
      fee: toMajor(fee, currency),
      total: toMajor(amount + fee, currency),
      currency,
      feePercent: config.agentSettlementFeePercent,
      floatBalance: toMajor(await accountBalance(db, walletAccount(wallet.id, currency), wallet.mode), currency),
      settlementAccount: account ? settlementAccountRecord(account) : null,
      limits: {
        perSettlement: toMajor(limit.perSettlement, currency),
        daily: toMajor(limit.daily, currency),
        usedToday: toMajor(used, currency),
        remainingToday: toMajor(Math.max(limit.daily - used, 0), currency),
      },
    };
  }

  /** The agent's secret confirms a settlement: a session token alone cannot send the float away. */
  async function checkSecret(agentId: string, secret: string): Promise<void> {
    const agent = await findAgent(db, agentId);
    if (!agent || !constantTimeEqual(sha256Hex(secret), agent.secret_hash)) throw forbidden('wrong_agent_secret', 'The agent secret is wrong: a settlement is confirmed with the secret the agent signs in with');
  }

  /**
   * A settlement: checks the account, the provider, the limits and the agent's secret, then debits
   * the float (amount + fee) and records the payment in one transaction under the wallet row's lock
   * (so two settlements at once cannot both pass the daily limit). Its id derives from the
   * Idempotency-Key: a re-run answers the settlement it made and pays nothing twice.
   */
  async function createSettlement(agent: CashAgent, body: { amount: number; currency?: string | undefined; secret: string }, id: string): Promise<{ row: PaymentRow; created: boolean }> {
    const wallet = await floatWallet(context, agent);
    const currency = floatCurrency(wallet, body.currency);
    const amount = toMinor(body.amount, currency);
    const account = await requireSettlementAccount(agent.agentId);
    if (account.currency !== currency || currencyOfCountry(account.country) !== currency) {
      throw badRequest('destination_currency_mismatch', `The settlement account is paid in ${account.currency}; this float settles ${currency}`);
    }
    const rail = railOf(account);
    let provider: string | undefined;
    if (agent.mode === 'live') {
      const chosen = context.payoutProviders.find((candidate) => candidate.supports(rail, account.country));
      if (!chosen) throw unprocessable('rail_unavailable', `No payout provider is configured for ${rail} to ${account.country} on this server`);
      const unpayable = chosen.refuseAmount?.(amount, currency);
      if (unpayable) throw unprocessable('amount_not_payable', `${chosen.name} cannot pay ${currency} ${toMajor(amount, currency)}: ${unpayable}`);
      provider = chosen.name;
    }
    const limit = await limits(currency);
    if (amount > limit.perSettlement) {
      throw unprocessable('settlement_limit_exceeded', `One settlement may be at most ${currency} ${toMajor(limit.perSettlement, currency)} (AGENT_SETTLEMENT_MAX_USD)`);
    }
    await checkSecret(agent.agentId, body.secret);
    const existing = await findWithdrawal(db, id, 'agent_settlement');
    if (existing) return { row: existing, created: false };

    const now = context.now();
    const stepMs = config.sandboxStepMs;
    const digits = (account.account_number ?? account.phone ?? '').replace(/\D/g, '');
    const sandbox = Object.entries(SANDBOX_PAYOUT_SUFFIXES).find(([, suffix]) => digits.endsWith(suffix))?.[0] as NewPayment['scenario'] | undefined;
    const scenario: NewPayment['scenario'] = agent.mode === 'test' ? (sandbox ?? 'sandbox_default') : 'provider';
    const payment: NewPayment = {
      id,
      merchant_id: null,
      mode: agent.mode,
      kind: 'agent_settlement',
      status: 'pending',
      scenario,
      rail,
      from_country: wallet.country,
      to_country: account.country,
      amount,
      currency,
      fee: settlementFee(amount),
      destination_amount: amount,
      destination_currency: currency,
      fx_rate: '1',
      mid_rate: '1',
      quote_id: null,
      receiver: settlementReceiver(account),
      receiver_name: account.account_name,
      sender_name: wallet.display_name,
      note: null,
      reference: null,
      source_wallet_id: wallet.id,
      recipient_wallet_id: null,
      payment_link_id: null,
      failure_reason: null,
      provider: provider ?? null,
      provider_reference: agent.mode === 'test' ? `sbx_agent_settlement_${newId('ref').slice(4, 20)}` : null,
      estimated_arrival: new Date(now.getTime() + (agent.mode === 'test' ? 2 * stepMs : RAIL_INFO[rail].typicalArrivalMs)),
      timeline: [{ status: 'pending', at: now.toISOString(), note: 'Settlement created; funds debited from the agent\'s float' }],
      next_step_at: scenario === 'sandbox_default' || scenario === 'sandbox_reversal' ? new Date(now.getTime() + stepMs) : scenario === 'provider' ? now : null,
      created_at: now,
    };
    return db.transaction(async (tx) => {
      await lockWalletRow(tx, wallet.id);
      const again = await findWithdrawal(tx, id, 'agent_settlement');
      if (again) return { row: again, created: false };
      const used = await withdrawnSince(tx, wallet.id, currency, new Date(now.getTime() - DAY_MS), 'agent_settlement');
      if (used + amount > limit.daily) {
        throw unprocessable('settlement_daily_limit_exceeded', `Settlements may add up to ${currency} ${toMajor(limit.daily, currency)} in 24 hours; ${currency} ${toMajor(Math.max(limit.daily - used, 0), currency)} is left (AGENT_SETTLEMENT_DAILY_USD)`);
      }
      // The debit (amount + fee) fails with 422 insufficient_funds: the float never goes below zero.
      const row = await recordPayment(tx, payment, stepMs);
      if (!row) return { row: (await findWithdrawal(tx, id, 'agent_settlement'))!, created: false };
      return { row, created: true };
    });
  }

  return { quoteTopUp, createTopUp, getTopUp, registerSettlementAccount, requireSettlementAccount, quoteSettlement, checkSecret, createSettlement };
}
export type AgentFloatService = ReturnType<typeof agentFloatService>;

/** A settlement as the agent reads it: a withdrawal's record (destination masked, timeline). */
export const settlementRecord = withdrawalRecord;
export const floatTopUpRecord = topUpRecord;

/** In the transaction that ends a float top-up: the agent's notification. */
export async function notifyFloatTopUp(tx: Queryable, row: CollectionRow, at: Date): Promise<void> {
  const amount = `${row.currency} ${toMajor(row.amount, row.currency)}`;
  const completed = row.status === 'completed';
  await insertWalletNotification(tx, {
    walletId: row.merchant_wallet_id,
    mode: row.mode,
    kind: `agent.float.top_up.${completed ? 'completed' : 'failed'}`,
    title: completed ? 'Float topped up' : 'Float top-up not completed',
    body: completed ? `${amount} from ${maskPhone(row.phone)} is in your float.` : `${amount} from ${maskPhone(row.phone)} was not added: ${row.failure_reason ?? row.status}.`,
    data: { topUpId: row.id, ...topUpRecord(row) },
    at,
  });
}

/** In the transaction that completes, fails or reverses settlements (payments/outcomes.ts): the agent's notifications. */
export async function notifySettlements(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  for (const row of rows) {
    const amount = `${row.currency} ${toMajor(row.amount, row.currency)}`;
    const paid = row.status === 'completed';
    const kind = paid ? 'agent.float.settlement.paid' : row.status === 'reversed' ? 'agent.float.settlement.reversed' : 'agent.float.settlement.failed';
    await insertWalletNotification(tx, {
      walletId: row.source_wallet_id!,
      mode: row.mode,
      kind,
      title: paid ? 'Settlement paid' : row.status === 'reversed' ? 'Settlement reversed' : 'Settlement failed',
      body: paid
        ? `${amount} was paid out to your settlement account.`
        : `${amount} was not paid out (${row.failure_reason ?? row.status}); ${row.currency} ${toMajor(row.amount + row.fee, row.currency)} is back in your float.`,
      data: { settlementId: row.id, ...withdrawalRecord(row) },
      at,
    });
  }
}

// The agent hears of its float's top-ups and settlements in the transactions that end them.
onCollectionOutcome('agent_float_top_up', notifyFloatTopUp);
onPaymentOutcome('agent_settlement', notifySettlements);
