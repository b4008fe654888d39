import { percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest, conflict } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCurrency } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { accountBalance, transfer } from '../../ledger/ledger.ts';
import { checkTierMovement, checkWalletPin, requireWallet, tierRates } from '../wallets/index.ts';
import { type AgentCashRow, findAgentCash, insertAgentCash } from './cash-store.ts';
import { checkCashOutCode } from './cash-out-codes.ts';
import { endCashOutCode } from './cash-out-codes-store.ts';

/** The agent as the session names it: its id, its wallet (the float) and mode. */
export interface CashAgent {
  agentId: string;
  walletId: string;
  handle: string;
  mode: AgentCashRow['mode'];
}

export interface CashRequest {
  handle: string;
  amount: number;
  currency?: string | undefined;
  /** Cash-out only: the customer's wallet PIN, typed by her on the agent's device... */
  walletPin?: string | undefined;
  /** ...or the one-time cash-out code she made in her wallet (cash-out-codes.ts). */
  code?: string | undefined;
}

export function agentCashRecord(row: AgentCashRow, floatBalance?: number) {
  return {
    id: row.id,
    kind: row.kind,
    handle: displayHandle(row.handle),
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    commission: toMajor(row.commission, row.currency),
    ...(row.cash_out_code_id ? { cashOutCodeId: row.cash_out_code_id } : {}),
    transferId: row.transfer_id,
    createdAt: row.created_at.toISOString(),
    ...(floatBalance === undefined ? {} : { floatBalance: toMajor(floatBalance, row.currency) }),
  };
}

/**
 * docs/agents.md. Cash-in: the customer hands the agent cash and the agent's wallet (its float)
 * pays hers, one `agent_cash_in` transfer. Cash-out: the customer types her wallet PIN on the
 * agent's device (her consent, with the wallet's lock-out after 5 wrong PINs) and her wallet pays
 * the agent's, one `agent_cash_out` transfer; the agent hands her the cash. No wallet goes below
 * zero (422 insufficient_funds). `id`: derived from the Idempotency-Key, so a retry moves nothing
 * twice and answers the first operation.
 */
export function agentCashService(context: AppContext) {
  const { db } = context;

  async function move(agent: CashAgent, kind: AgentCashRow['kind'], request: CashRequest, derived: string | undefined) {
    const id = derived ?? newId('acx');
    const done = await findAgentCash(db, id);
    if (done) return agentCashRecord(done);
    const customer = await requireWallet(db, canonicalHandle(request.handle), agent.mode);
    if (customer.id === agent.walletId) throw badRequest('cannot_pay_self', 'An agent cannot cash in or out of its own wallet');
    const currency = supportedCurrency(request.currency ?? customer.currency);
    const amount = toMinor(request.amount, currency);
    let codeId: string | null = null;
    if (kind === 'cash_out') {
      const pin = request.walletPin ?? '';
      const code = request.code ?? '';
      if (pin !== '' && code !== '') throw badRequest('cash_out_consent_ambiguous', 'Send the customer\'s walletPin or her one-time code, not both');
      if (pin === '' && code === '') throw badRequest('wallet_pin_required', 'A cash-out needs the customer\'s consent: her wallet PIN (walletPin), typed by her, or the one-time code she made (code)');
      // Outside the transaction: the KDF is slow and PGlite has one connection.
      if (pin !== '') await checkWalletPin(db, customer, pin, context.now());
      else codeId = (await checkCashOutCode(context, customer, code, amount, currency)).id;
    }
    const now = context.now();
    const transferId = `agent_cash:${id}`;
    // The platform pays the agent's commission from its fees, in the operation's own transfer.
    const commission = percentOf(amount, kind === 'cash_in' ? context.config.agentCashInCommissionPercent : context.config.agentCashOutCommissionPercent, 'down');
    const legs = kind === 'cash_in'
      ? [{ account: walletAccount(agent.walletId, currency), amount: -(amount - commission) }, { account: walletAccount(customer.id, currency), amount }]
      : [{ account: walletAccount(customer.id, currency), amount: -amount }, { account: walletAccount(agent.walletId, currency), amount: amount + commission }];
    if (commission > 0) legs.push({ account: systemAccount('fees', currency), amount: -commission });
    const rates = await tierRates(context);
    const { row, float } = await db.transaction(async (tx) => {
      if (codeId !== null && !(await endCashOutCode(tx, codeId, 'used', now, id))) {
        throw conflict('cash_out_code_used', 'This cash-out code was used or cancelled a moment ago: the customer makes a new one');
      }
      // The customer's verification tier (docs/wallet-tiers.md): cash-in is money in, cash-out money out; checked under her wallet row's lock.
      await checkTierMovement(context, tx, customer, { id, kind: kind === 'cash_in' ? 'agent_cash_in' : 'agent_cash_out', amount, currency }, rates);
      const row: AgentCashRow = { id, agent_id: agent.agentId, mode: agent.mode, kind, wallet_id: customer.id, handle: customer.handle, amount, currency, transfer_id: transferId, commission, cash_out_code_id: codeId, created_at: now };
      await insertAgentCash(tx, row);
      await transfer(tx, {
        id: transferId,
        mode: agent.mode,
        kind: kind === 'cash_in' ? 'agent_cash_in' : 'agent_cash_out',
        legs,
        metadata: { agentId: agent.agentId, customer: customer.handle, operationId: id, ...(commission > 0 ? { commission } : {}) },
      });
      return { row: (await findAgentCash(tx, id))!, float: await accountBalance(tx, walletAccount(agent.walletId, currency), agent.mode) };
    });
    return agentCashRecord(row, float);
  }

  return {
    cashIn: (agent: CashAgent, request: CashRequest, derived: string | undefined) => move(agent, 'cash_in', request, derived),
    cashOut: (agent: CashAgent, request: CashRequest, derived: string | undefined) => move(agent, 'cash_out', request, derived),
  };
}
