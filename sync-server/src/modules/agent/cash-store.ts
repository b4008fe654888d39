import type { Mode } from '../../auth/secrets.ts';
import type { Queryable } from '../../db/database.ts';

export interface AgentCashRow {
  id: string;
  agent_id: string;
  mode: Mode;
  kind: 'cash_in' | 'cash_out';
  wallet_id: string;
  handle: string;
  amount: number;
  currency: string;
  transfer_id: string;
  /** Paid by the platform into the agent's float on top (minor units; 0 without a commission rate). */
  commission: number;
  /** A cash-out confirmed with the holder's one-time code rather than her PIN: the code's id. */
  cash_out_code_id: string | null;
  created_at: Date;
}

const COLUMNS = 'id, agent_id, mode, kind, wallet_id, handle, amount::int8 AS amount, currency, transfer_id, commission::int8 AS commission, cash_out_code_id, created_at';
const parsed = (row: AgentCashRow): AgentCashRow => ({ ...row, amount: Number(row.amount), commission: Number(row.commission) });

/** Records an operation; a retry of the same id keeps the first row (answered by findAgentCash). */
export async function insertAgentCash(tx: Queryable, row: AgentCashRow): Promise<void> {
  await tx.query(
    `INSERT INTO agent_cash_transactions (id, agent_id, mode, kind, wallet_id, handle, amount, currency, transfer_id, created_at, commission, cash_out_code_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
    [row.id, row.agent_id, row.mode, row.kind, row.wallet_id, row.handle, row.amount, row.currency, row.transfer_id, row.created_at, row.commission, row.cash_out_code_id],
  );
}

export async function findAgentCash(db: Queryable, id: string): Promise<AgentCashRow | undefined> {
  const [row] = await db.query<AgentCashRow>(`SELECT ${COLUMNS} FROM agent_cash_transactions WHERE id = $1`, [id]);
  return row ? parsed(row) : undefined;
}

/** A line of the agent's cash history: a cash-in or cash-out, or a cash pickup it paid (cash_pickups, modules/cash-pickup). */
export type AgentCashLine =
  | (AgentCashRow & { phone: null; payment_id: null })
  | (Omit<AgentCashRow, 'kind' | 'wallet_id' | 'handle'> & { kind: 'cash_pickup'; wallet_id: null; handle: null; phone: string; payment_id: string });

/**
 * The agent's cash operations, newest first: its cash-ins and cash-outs, and the cash pickups it
 * paid out (dated when paid; their transfer is the payment's settlement into the float, `<payment>:settle`).
 */
export async function listAgentCash(db: Queryable, agentId: string, limit: number, offset: number): Promise<{ rows: AgentCashLine[]; total: number }> {
  const rows = await db.query<AgentCashLine>(
    `SELECT ${COLUMNS}, NULL::text AS phone, NULL::text AS payment_id FROM agent_cash_transactions WHERE agent_id = $1
     UNION ALL
     SELECT id, agent_id, mode, 'cash_pickup', NULL, NULL, amount::int8, currency, payment_id || ':settle', commission::int8, NULL, ended_at, phone, payment_id
       FROM cash_pickups WHERE agent_id = $1 AND status = 'paid'
     ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [agentId, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(
    `SELECT (SELECT count(*) FROM agent_cash_transactions WHERE agent_id = $1) + (SELECT count(*) FROM cash_pickups WHERE agent_id = $1 AND status = 'paid') AS total`,
    [agentId],
  );
  return { rows: rows.map((row) => ({ ...row, amount: Number(row.amount), commission: Number(row.commission) }) as AgentCashLine), total: Number(count?.total ?? 0) };
}
