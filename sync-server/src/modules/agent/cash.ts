import { toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCurrency } from '../../http/validate.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { accountBalance, transfer } from '../../ledger/ledger.ts';
import { checkWalletPin, requireWallet } from '../wallets/index.ts';
import { type AgentCashRow, findAgentCash, insertAgentCash } from './cash-store.ts';

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
  /** Cash-out only: the customer's wallet PIN, typed by her on the agent's device. */
  walletPin?: string | undefined;
}

export function agentCashRecord(row: AgentCashRow, floatBalance?: number) {
  return {
    id: row.id,
    kind: row.kind,
    handle: displayHandle(row.handle),
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
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
    if (kind === 'cash_out') {
      if (request.walletPin === undefined || request.walletPin === '') throw badRequest('wallet_pin_required', 'A cash-out needs the customer\'s wallet PIN (walletPin), typed by her');
      // Outside the transaction: the KDF is slow and PGlite has one connection.
      await checkWalletPin(db, customer, request.walletPin, context.now());
    }
    const now = context.now();
    const transferId = `agent_cash:${id}`;
    const [from, to] = kind === 'cash_in' ? [agent.walletId, customer.id] : [customer.id, agent.walletId];
    const { row, float } = await db.transaction(async (tx) => {
      const row: AgentCashRow = { id, agent_id: agent.agentId, mode: agent.mode, kind, wallet_id: customer.id, handle: customer.handle, amount, currency, transfer_id: transferId, created_at: now };
      await insertAgentCash(tx, row);
      await transfer(tx, {
        id: transferId,
        mode: agent.mode,
        kind: kind === 'cash_in' ? 'agent_cash_in' : 'agent_cash_out',
        legs: [
          { account: walletAccount(from, currency), amount: -amount },
          { account: walletAccount(to, currency), amount },
        ],
        metadata: { agentId: agent.agentId, customer: customer.handle, operationId: id },
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
