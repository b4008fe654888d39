// The agent_settlement_accounts table (migration 049): where each agent's float is settled. An
// agent's float top-ups are collections (modules/collections) and its settlements payments
// (modules/payments, kind agent_settlement), read through those modules.
import type { Queryable } from '../../db/database.ts';
import type { CheckedDestination } from '../payouts/index.ts';

export interface AgentSettlementAccountRow extends CheckedDestination {
  agent_id: string;
  registered_at: Date;
}

/** Registers the agent's settlement account, replacing the one before (settlements already made keep the destination they paid). */
export async function upsertAgentSettlementAccount(db: Queryable, row: AgentSettlementAccountRow): Promise<AgentSettlementAccountRow> {
  const [stored] = await db.query<AgentSettlementAccountRow>(
    `INSERT INTO agent_settlement_accounts (agent_id, type, country, currency, bank_code, account_number, phone, operator, account_name, name_source, registered_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (agent_id) DO UPDATE SET type = EXCLUDED.type, country = EXCLUDED.country, currency = EXCLUDED.currency, bank_code = EXCLUDED.bank_code,
       account_number = EXCLUDED.account_number, phone = EXCLUDED.phone, operator = EXCLUDED.operator, account_name = EXCLUDED.account_name,
       name_source = EXCLUDED.name_source, registered_at = EXCLUDED.registered_at
     RETURNING *`,
    [row.agent_id, row.type, row.country, row.currency, row.bank_code, row.account_number, row.phone, row.operator, row.account_name, row.name_source, row.registered_at],
  );
  return stored!;
}

export async function findAgentSettlementAccount(db: Queryable, agentId: string): Promise<AgentSettlementAccountRow | undefined> {
  const [row] = await db.query<AgentSettlementAccountRow>('SELECT * FROM agent_settlement_accounts WHERE agent_id = $1', [agentId]);
  return row;
}

