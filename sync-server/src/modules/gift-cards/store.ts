import type { GiftCardBrandConfig, GiftCardIssuerType, GiftCardStatus } from '@tapline/shared/schemas';
import type { Queryable, SqlParam } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** The only file of the module with SQL. Every time written comes from the caller's clock. */

export type CardSource = 'single' | 'bulk' | 'import' | 'program' | 'reward' | 'terminal';

export interface CardRow {
  id: string;
  mode: Mode;
  code_hash: string;
  code_prefix: string;
  issuer_type: GiftCardIssuerType;
  issuer_id: string;
  issuer_wallet_id: string;
  issuer_handle: string;
  source: CardSource;
  batch_id: string | null;
  program_id: string | null;
  external_ref: string | null;
  reward_rule_id: string | null;
  amount: number;
  amount_remaining: number;
  currency: string;
  status: GiftCardStatus;
  message: string | null;
  pin_hash: string | null;
  failed_pin_attempts: number;
  pin_locked_until: Date | null;
  locked_to_handle: string | null;
  design_theme: string;
  brand: GiftCardBrandConfig | null;
  multi_merchant: boolean;
  expires_at: Date;
  deliver_to_handle: string | null;
  deliver_to_wallet_id: string | null;
  deliver_at: Date | null;
  delivered_at: Date | null;
  delivery_attempts: number;
  delivery_next_attempt_at: Date | null;
  delivery_error: string | null;
  subscription_plan_id: string | null;
  gift_months: number | null;
  issue_transfer_id: string;
  ended_at: Date | null;
  end_reason: string | null;
  end_transfer_id: string | null;
  returned_amount: number;
  first_redeemed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A card to insert: everything but the bookkeeping columns that start at their defaults. */
export type NewCard = Omit<
  CardRow,
  | 'amount_remaining'
  | 'status'
  | 'failed_pin_attempts'
  | 'pin_locked_until'
  | 'delivered_at'
  | 'delivery_attempts'
  | 'delivery_next_attempt_at'
  | 'delivery_error'
  | 'ended_at'
  | 'end_reason'
  | 'end_transfer_id'
  | 'returned_amount'
  | 'first_redeemed_at'
  | 'updated_at'
> & { status: 'scheduled' | 'active' };

const NEW_CARD_COLUMNS: ReadonlyArray<[keyof NewCard, string]> = [
  ['id', 'text'],
  ['mode', 'text'],
  ['code_hash', 'text'],
  ['code_prefix', 'text'],
  ['issuer_type', 'text'],
  ['issuer_id', 'text'],
  ['issuer_wallet_id', 'text'],
  ['issuer_handle', 'text'],
  ['source', 'text'],
  ['batch_id', 'text'],
  ['program_id', 'text'],
  ['external_ref', 'text'],
  ['reward_rule_id', 'text'],
  ['amount', 'int8'],
  ['currency', 'text'],
  ['status', 'text'],
  ['message', 'text'],
  ['pin_hash', 'text'],
  ['locked_to_handle', 'text'],
  ['design_theme', 'text'],
  ['brand', 'jsonb'],
  ['multi_merchant', 'boolean'],
  ['expires_at', 'timestamptz'],
  ['deliver_to_handle', 'text'],
  ['deliver_to_wallet_id', 'text'],
  ['deliver_at', 'timestamptz'],
  ['subscription_plan_id', 'text'],
  ['gift_months', 'int4'],
  ['issue_transfer_id', 'text'],
  ['created_at', 'timestamptz'],
];

/**
 * Inserts cards in one statement. A card that collides with a unique index (a program's
 * externalRef issued concurrently) is left out: the answer holds only the rows inserted, and the
 * caller funds exactly those.
 */
export async function insertCards(tx: Queryable, cards: readonly NewCard[]): Promise<CardRow[]> {
  if (cards.length === 0) return [];
  const names = NEW_CARD_COLUMNS.map(([name]) => name).join(', ');
  const record = NEW_CARD_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ');
  const payload = cards.map((card) => {
    const row: Record<string, unknown> = {};
    for (const [name] of NEW_CARD_COLUMNS) {
      const value = card[name];
      row[name] = value instanceof Date ? value.toISOString() : value;
    }
    return row;
  });
  return tx.query<CardRow>(
    `INSERT INTO gift_cards (${names}, amount_remaining, updated_at)
     SELECT ${names}, amount, created_at FROM jsonb_to_recordset($1::jsonb) AS r (${record})
     ON CONFLICT DO NOTHING
     RETURNING *`,
    [JSON.stringify(payload)],
  );
}

export async function findCardByHash(db: Queryable, hash: string): Promise<CardRow | undefined> {
  const [row] = await db.query<CardRow>('SELECT * FROM gift_cards WHERE code_hash = $1', [hash]);
  return row;
}

export async function codeTaken(db: Queryable, hash: string): Promise<boolean> {
  const [row] = await db.query('SELECT 1 FROM gift_cards WHERE code_hash = $1', [hash]);
  return row !== undefined;
}

export async function cardsOfBatch(db: Queryable, batchId: string): Promise<CardRow[]> {
  return db.query<CardRow>('SELECT * FROM gift_cards WHERE batch_id = $1 ORDER BY created_at, id', [batchId]);
}

export async function findCard(db: Queryable, id: string): Promise<CardRow | undefined> {
  const [row] = await db.query<CardRow>('SELECT * FROM gift_cards WHERE id = $1', [id]);
  return row;
}

export async function lockCard(tx: Queryable, id: string): Promise<CardRow | undefined> {
  const [row] = await tx.query<CardRow>('SELECT * FROM gift_cards WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

/** Single issues of one issuer since `since`: how many, and the oldest (when the window frees a slot). */
export async function singleIssuesSince(tx: Queryable, issuerWalletId: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await tx.query<{ count: number; oldest: Date | null }>(
    `SELECT count(*)::int8 AS count, min(created_at) AS oldest FROM gift_cards
     WHERE issuer_wallet_id = $1 AND source = 'single' AND created_at > $2`,
    [issuerWalletId, since],
  );
  return { count: row?.count ?? 0, oldest: row?.oldest ?? null };
}

export async function existingExternalRefs(db: Queryable, programId: string, refs: readonly string[]): Promise<Map<string, string>> {
  if (refs.length === 0) return new Map();
  const rows = await db.query<{ external_ref: string; id: string }>(
    'SELECT external_ref, id FROM gift_cards WHERE program_id = $1 AND external_ref = ANY ($2::text[])',
    [programId, refs],
  );
  return new Map(rows.map((row) => [row.external_ref, row.id]));
}

// PIN attempts ------------------------------------------------------------------------------

export type CardPinAttempt = { outcome: 'allowed'; attempt: number } | { outcome: 'locked'; lockedUntil: Date };

/**
 * Reserves a PIN attempt before the slow scrypt check (the wallets' pattern), so concurrent
 * guesses cannot all slip in before the counter moves: at most `max` checks per lock-out.
 */
export async function reserveCardPinAttempt(db: Queryable, cardId: string, now: Date, max: number, lockMinutes: number): Promise<CardPinAttempt> {
  const [row] = await db.query<{ failed_pin_attempts: number; pin_locked_until: Date | null; locked: boolean }>(
    `UPDATE gift_cards SET failed_pin_attempts = CASE WHEN pin_locked_until IS NOT NULL AND pin_locked_until > $2
                                                      THEN failed_pin_attempts ELSE failed_pin_attempts + 1 END
     WHERE id = $1
     RETURNING failed_pin_attempts, pin_locked_until, (pin_locked_until IS NOT NULL AND pin_locked_until > $2) AS locked`,
    [cardId, now],
  );
  if (!row) throw new Error(`gift card ${cardId} vanished`);
  if (row.locked && row.pin_locked_until) return { outcome: 'locked', lockedUntil: row.pin_locked_until };
  if (row.failed_pin_attempts > max) return { outcome: 'locked', lockedUntil: await lockCardPin(db, cardId, now, lockMinutes) };
  return { outcome: 'allowed', attempt: row.failed_pin_attempts };
}

async function lockCardPin(db: Queryable, cardId: string, now: Date, lockMinutes: number): Promise<Date> {
  const until = new Date(now.getTime() + lockMinutes * 60_000);
  await db.query('UPDATE gift_cards SET failed_pin_attempts = 0, pin_locked_until = $2 WHERE id = $1', [cardId, until]);
  return until;
}

/** Records a reserved attempt's result; returns the lock's end when this wrong PIN locked the card. */
export async function settleCardPinAttempt(
  db: Queryable,
  cardId: string,
  attempt: number,
  correct: boolean,
  now: Date,
  max: number,
  lockMinutes: number,
): Promise<Date | undefined> {
  if (correct) {
    await db.query('UPDATE gift_cards SET failed_pin_attempts = 0, pin_locked_until = NULL WHERE id = $1', [cardId]);
    return undefined;
  }
  if (attempt >= max) return lockCardPin(db, cardId, now, lockMinutes);
  return undefined;
}

// Redemptions -------------------------------------------------------------------------------

export interface RedemptionRow {
  id: string;
  card_id: string;
  mode: Mode;
  amount_drawn: number;
  credited_amount: number;
  credited_currency: string;
  fx_rate: string;
  fx_as_of: string | null;
  redeemer_wallet_id: string;
  redeemer_handle: string;
  redeemer_kind: 'merchant' | 'terminal' | 'wallet' | 'agent' | 'delivery';
  terminal_id: string | null;
  transfer_id: string;
  subscription_activation_id: string | null;
  created_at: Date;
  /** Joined from the card. */
  currency: string;
}

const REDEMPTION_COLUMNS = `r.id, r.card_id, r.mode, r.amount_drawn, r.credited_amount, r.credited_currency, r.fx_rate, r.fx_as_of,
  r.redeemer_wallet_id, r.redeemer_handle, r.redeemer_kind, r.terminal_id, r.transfer_id, r.subscription_activation_id, r.created_at, c.currency`;

export async function findRedemption(db: Queryable, id: string): Promise<RedemptionRow | undefined> {
  const [row] = await db.query<RedemptionRow>(`SELECT ${REDEMPTION_COLUMNS} FROM gift_card_redemptions r JOIN gift_cards c ON c.id = r.card_id WHERE r.id = $1`, [id]);
  return row;
}

export async function insertRedemption(tx: Queryable, row: Omit<RedemptionRow, 'currency'>): Promise<void> {
  await tx.query(
    `INSERT INTO gift_card_redemptions (id, card_id, mode, amount_drawn, credited_amount, credited_currency, fx_rate, fx_as_of,
       redeemer_wallet_id, redeemer_handle, redeemer_kind, terminal_id, transfer_id, subscription_activation_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      row.id,
      row.card_id,
      row.mode,
      row.amount_drawn,
      row.credited_amount,
      row.credited_currency,
      row.fx_rate,
      row.fx_as_of,
      row.redeemer_wallet_id,
      row.redeemer_handle,
      row.redeemer_kind,
      row.terminal_id,
      row.transfer_id,
      row.subscription_activation_id,
      row.created_at,
    ],
  );
}

export async function listRedemptions(db: Queryable, cardId: string, limit: number, offset: number): Promise<{ rows: RedemptionRow[]; total: number }> {
  const rows = await db.query<RedemptionRow>(
    `SELECT ${REDEMPTION_COLUMNS} FROM gift_card_redemptions r JOIN gift_cards c ON c.id = r.card_id
     WHERE r.card_id = $1 ORDER BY r.created_at, r.id LIMIT $2 OFFSET $3`,
    [cardId, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM gift_card_redemptions WHERE card_id = $1', [cardId]);
  return { rows, total: count?.total ?? 0 };
}

/** Applies a redemption to the locked card: balance down, used at zero, first redemption time kept. */
export async function drawFromCard(tx: Queryable, cardId: string, drawn: number, now: Date, delivered: boolean): Promise<CardRow> {
  const [row] = await tx.query<CardRow>(
    `UPDATE gift_cards SET
       amount_remaining = amount_remaining - $2,
       status = CASE WHEN amount_remaining - $2 = 0 THEN 'used' ELSE status END,
       ended_at = CASE WHEN amount_remaining - $2 = 0 THEN $3 ELSE ended_at END,
       end_reason = CASE WHEN amount_remaining - $2 = 0 THEN 'used' ELSE end_reason END,
       first_redeemed_at = coalesce(first_redeemed_at, $3),
       delivered_at = CASE WHEN $4 THEN $3 ELSE delivered_at END,
       delivery_error = CASE WHEN $4 THEN NULL ELSE delivery_error END,
       updated_at = $3
     WHERE id = $1 RETURNING *`,
    [cardId, drawn, now, delivered],
  );
  if (!row) throw new Error(`gift card ${cardId} vanished`);
  return row;
}

/** Ends a card (expired, cancelled, refunded) and records what went back to the issuer. */
/**
 * Puts `amount` back on a card (a refunded shop order it paid for): active again, and a card the
 * order had used up loses its end. The caller moves the money back to the liability.
 */
export async function restoreCardBalance(tx: Queryable, cardId: string, amount: number, now: Date): Promise<void> {
  await tx.query(
    `UPDATE gift_cards SET amount_remaining = amount_remaining + $2, status = 'active',
       ended_at = CASE WHEN status = 'used' THEN NULL ELSE ended_at END, end_reason = CASE WHEN status = 'used' THEN NULL ELSE end_reason END,
       updated_at = $3
     WHERE id = $1`,
    [cardId, amount, now],
  );
}

export async function endCard(
  tx: Queryable,
  cardId: string,
  fields: { status: 'expired' | 'cancelled' | 'refunded'; endedAt: Date; now: Date; transferId: string | null; reason: string },
): Promise<CardRow> {
  const [row] = await tx.query<CardRow>(
    `UPDATE gift_cards SET status = $2, ended_at = $3, end_reason = $5, end_transfer_id = $4,
       returned_amount = amount_remaining, updated_at = $6
     WHERE id = $1 RETURNING *`,
    [cardId, fields.status, fields.endedAt, fields.transferId, fields.reason, fields.now],
  );
  if (!row) throw new Error(`gift card ${cardId} vanished`);
  return row;
}

/** Active cards past their expiry, one mode at a time, locked and skipped when another worker has them. */
export async function claimExpiredCards(tx: Queryable, now: Date, mode: Mode, limit: number, cardId?: string): Promise<CardRow[]> {
  return tx.query<CardRow>(
    `SELECT * FROM gift_cards WHERE status = 'active' AND expires_at <= $1 AND mode = $2 AND ($4::text IS NULL OR id = $4)
     ORDER BY expires_at, id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [now, mode, limit, cardId ?? null],
  );
}

/** The next scheduled card due for delivery, locked; another worker skips it. */
export async function claimDueDelivery(tx: Queryable, now: Date): Promise<CardRow | undefined> {
  const [row] = await tx.query<CardRow>(
    `SELECT * FROM gift_cards WHERE status = 'scheduled' AND deliver_at <= $1
       AND (delivery_next_attempt_at IS NULL OR delivery_next_attempt_at <= $1)
     ORDER BY deliver_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [now],
  );
  return row;
}

export async function recordDeliveryFailure(db: Queryable, cardId: string, error: string, nextAttemptAt: Date, now: Date): Promise<void> {
  await db.query(
    `UPDATE gift_cards SET delivery_attempts = delivery_attempts + 1, delivery_error = $2, delivery_next_attempt_at = $3, updated_at = $4 WHERE id = $1`,
    [cardId, error.slice(0, 500), nextAttemptAt, now],
  );
}

export async function countDueDeliveries(db: Queryable, now: Date): Promise<number> {
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int8 AS count FROM gift_cards WHERE status = 'scheduled' AND deliver_at <= $1`, [now]);
  return row?.count ?? 0;
}

// Lists -------------------------------------------------------------------------------------

export interface CardFilter {
  mode?: Mode | undefined;
  issuerWalletId?: string | undefined;
  issuerType?: GiftCardIssuerType | undefined;
  /** Matches issuer_id or issuer_handle. */
  issuerIdOrHandle?: string | undefined;
  programId?: string | undefined;
  status?: GiftCardStatus | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
}

/** The WHERE clause of a card filter, with its parameters numbered from `firstParam`. */
export function cardWhere(filter: CardFilter, alias = 'c', firstParam = 1): { sql: string; params: SqlParam[] } {
  const clauses: string[] = [];
  const params: SqlParam[] = [];
  const add = (clause: (placeholder: string) => string, value: SqlParam) => {
    params.push(value);
    clauses.push(clause(`$${firstParam + params.length - 1}`));
  };
  if (filter.mode) add((p) => `${alias}.mode = ${p}`, filter.mode);
  if (filter.issuerWalletId) add((p) => `${alias}.issuer_wallet_id = ${p}`, filter.issuerWalletId);
  if (filter.issuerType) add((p) => `${alias}.issuer_type = ${p}`, filter.issuerType);
  if (filter.issuerIdOrHandle) add((p) => `(${alias}.issuer_id = ${p} OR ${alias}.issuer_wallet_id = ${p} OR ${alias}.issuer_handle = lower(ltrim(${p}, '@')))`, filter.issuerIdOrHandle);
  if (filter.programId) add((p) => `${alias}.program_id = ${p}`, filter.programId);
  if (filter.status) add((p) => `${alias}.status = ${p}`, filter.status);
  if (filter.createdFrom) add((p) => `${alias}.created_at >= ${p}`, filter.createdFrom);
  if (filter.createdTo) add((p) => `${alias}.created_at <= ${p}`, filter.createdTo);
  return { sql: clauses.length ? clauses.join(' AND ') : 'true', params };
}

export async function listCards(db: Queryable, filter: CardFilter, limit: number, offset: number): Promise<{ rows: CardRow[]; total: number }> {
  const where = cardWhere(filter);
  const rows = await db.query<CardRow>(
    `SELECT c.* FROM gift_cards c WHERE ${where.sql} ORDER BY c.created_at DESC, c.id DESC LIMIT $${where.params.length + 1} OFFSET $${where.params.length + 2}`,
    [...where.params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM gift_cards c WHERE ${where.sql}`, where.params);
  return { rows, total: count?.total ?? 0 };
}

// Verify misses -----------------------------------------------------------------------------

export async function verifyMissesOf(db: Queryable, ip: string, now: Date): Promise<{ count: number; windowEndsAt: Date } | undefined> {
  const [row] = await db.query<{ count: number; window_ends_at: Date }>(
    'SELECT count, window_ends_at FROM gift_card_verify_misses WHERE ip = $1 AND window_ends_at > $2',
    [ip, now],
  );
  return row ? { count: row.count, windowEndsAt: row.window_ends_at } : undefined;
}

export async function recordVerifyMiss(db: Queryable, ip: string, now: Date, windowSeconds: number): Promise<void> {
  await db.query(
    `INSERT INTO gift_card_verify_misses AS m (ip, count, window_ends_at) VALUES ($1, 1, $3)
     ON CONFLICT (ip) DO UPDATE SET
       count = CASE WHEN m.window_ends_at <= $2 THEN 1 ELSE m.count + 1 END,
       window_ends_at = CASE WHEN m.window_ends_at <= $2 THEN EXCLUDED.window_ends_at ELSE m.window_ends_at END`,
    [ip, now, new Date(now.getTime() + windowSeconds * 1000)],
  );
}

export async function deleteStaleVerifyMisses(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM gift_card_verify_misses WHERE window_ends_at <= $1', [now]);
}

// Programs, reward rules, subscription plans ------------------------------------------------

export interface ProgramRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string;
  description: string | null;
  status: 'active' | 'archived';
  created_at: Date;
  updated_at: Date;
}

export async function insertProgram(db: Queryable, row: ProgramRow): Promise<ProgramRow> {
  const [created] = await db.query<ProgramRow>(
    `INSERT INTO gift_card_programs (id, merchant_id, mode, name, description, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [row.id, row.merchant_id, row.mode, row.name, row.description, row.status, row.created_at, row.updated_at],
  );
  return created!;
}

export async function findProgram(db: Queryable, id: string, merchantId: string, mode: Mode): Promise<ProgramRow | undefined> {
  const [row] = await db.query<ProgramRow>('SELECT * FROM gift_card_programs WHERE id = $1 AND merchant_id = $2 AND mode = $3', [id, merchantId, mode]);
  return row;
}

export async function listPrograms(db: Queryable, merchantId: string, mode: Mode, limit: number, offset: number): Promise<{ rows: ProgramRow[]; total: number }> {
  const rows = await db.query<ProgramRow>(
    'SELECT * FROM gift_card_programs WHERE merchant_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4',
    [merchantId, mode, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM gift_card_programs WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return { rows, total: count?.total ?? 0 };
}

export async function updateProgram(
  db: Queryable,
  id: string,
  merchantId: string,
  mode: Mode,
  fields: { name?: string | undefined; description?: string | null | undefined; status?: 'active' | 'archived' | undefined; now: Date },
): Promise<ProgramRow | undefined> {
  const [row] = await db.query<ProgramRow>(
    `UPDATE gift_card_programs SET name = coalesce($4, name),
       description = CASE WHEN $5 THEN $6 ELSE description END,
       status = coalesce($7, status), updated_at = $8
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING *`,
    [id, merchantId, mode, fields.name ?? null, fields.description !== undefined, fields.description ?? null, fields.status ?? null, fields.now],
  );
  return row;
}

export interface RewardRuleRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string;
  min_spend: number;
  percent: string;
  max_reward: number | null;
  currency: string;
  status: 'active' | 'archived';
  created_at: Date;
  updated_at: Date;
}

export async function insertRewardRule(db: Queryable, row: RewardRuleRow): Promise<RewardRuleRow> {
  const [created] = await db.query<RewardRuleRow>(
    `INSERT INTO gift_card_reward_rules (id, merchant_id, mode, name, min_spend, percent, max_reward, currency, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [row.id, row.merchant_id, row.mode, row.name, row.min_spend, row.percent, row.max_reward, row.currency, row.status, row.created_at, row.updated_at],
  );
  return created!;
}

export async function findRewardRule(db: Queryable, id: string, merchantId: string, mode: Mode): Promise<RewardRuleRow | undefined> {
  const [row] = await db.query<RewardRuleRow>('SELECT * FROM gift_card_reward_rules WHERE id = $1 AND merchant_id = $2 AND mode = $3', [id, merchantId, mode]);
  return row;
}

export async function listRewardRules(
  db: Queryable,
  merchantId: string,
  mode: Mode,
  status: 'active' | 'archived' | undefined,
  limit: number,
  offset: number,
): Promise<{ rows: RewardRuleRow[]; total: number }> {
  const rows = await db.query<RewardRuleRow>(
    `SELECT * FROM gift_card_reward_rules WHERE merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3)
     ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
    [merchantId, mode, status ?? null, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(
    'SELECT count(*)::int8 AS total FROM gift_card_reward_rules WHERE merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3)',
    [merchantId, mode, status ?? null],
  );
  return { rows, total: count?.total ?? 0 };
}

export async function saveRewardRule(db: Queryable, row: RewardRuleRow): Promise<RewardRuleRow> {
  const [saved] = await db.query<RewardRuleRow>(
    `UPDATE gift_card_reward_rules SET name = $2, min_spend = $3, percent = $4, max_reward = $5, currency = $6, status = $7, updated_at = $8
     WHERE id = $1 RETURNING *`,
    [row.id, row.name, row.min_spend, row.percent, row.max_reward, row.currency, row.status, row.updated_at],
  );
  return saved!;
}

/** Active rules of a merchant that a spend of `spend` minor units in `currency` qualifies for. */
export async function matchingRewardRules(db: Queryable, merchantId: string, mode: Mode, currency: string, spend: number): Promise<RewardRuleRow[]> {
  return db.query<RewardRuleRow>(
    `SELECT * FROM gift_card_reward_rules
     WHERE merchant_id = $1 AND mode = $2 AND currency = $3 AND status = 'active' AND min_spend <= $4
     ORDER BY created_at, id`,
    [merchantId, mode, currency, spend],
  );
}
