import type { GiftCardIssuerType } from '@tapline/shared/schemas';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { unprocessable } from '../../http/errors.ts';
import { type AccountRef, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { type TransferLeg, lockWalletBalances } from '../../ledger/ledger.ts';
import { codeHash, codePrefixOf, newGiftCardCode } from './codes.ts';
import { type CardSource, type NewCard } from './store.ts';
import { type CardFields, addMonths } from './validation.ts';

/** Who pays for a card: the caller's wallet on its surface. */
export interface Issuer {
  type: GiftCardIssuerType;
  /** Merchant id, wallet id or agent id. */
  id: string;
  walletId: string;
  handle: string;
  mode: Mode;
  /** The wallet's own currency: the default reporting currency of its analytics. */
  homeCurrency: string;
  merchantId: string | null;
}

/** Whose wallet a redemption credits (CONTRACT.md: the authenticated principal's). */
export interface Redeemer {
  kind: 'merchant' | 'terminal' | 'wallet' | 'agent' | 'delivery';
  walletId: string;
  handle: string;
  mode: Mode;
  merchantId: string | null;
  terminalId: string | null;
}

/**
 * Ids a request derives from its Idempotency-Key (http/idempotency.ts idempotentId): a re-run of
 * the same request after a crash finds the card, batch or redemption it already made and answers
 * with it instead of issuing or redeeming twice. Without a key, fresh ids.
 */
export interface RequestIds {
  cardId?: string | undefined;
  batchId?: string | undefined;
  redemptionId?: string | undefined;
}

/** A card before it is inserted: the validated fields plus where it came from and where it goes. */
export interface CardDraft extends CardFields {
  deliverToHandle: string | null;
  deliverToWalletId: string | null;
  deliverAt: Date | null;
  subscriptionPlanId: string | null;
  giftMonths: number | null;
  multiMerchant: boolean;
  source: CardSource;
  batchId: string | null;
  programId: string | null;
  externalRef: string | null;
  rewardRuleId: string | null;
}

export function baseDraft(fields: CardFields, source: CardSource): CardDraft {
  return {
    ...fields,
    deliverToHandle: null,
    deliverToWalletId: null,
    deliverAt: null,
    subscriptionPlanId: null,
    giftMonths: null,
    multiMerchant: false,
    source,
    batchId: null,
    programId: null,
    externalRef: null,
    rewardRuleId: null,
  };
}

/** A card row ready to insert, with its fresh code (kept in memory only, for the answer). */
export function newCard(issuer: Issuer, draft: CardDraft, now: Date, pinHash: string | null, id: string, transferId: string): { card: NewCard; code: string } {
  const code = newGiftCardCode();
  return { code, card: cardRow(issuer, draft, now, pinHash, id, transferId, { hash: codeHash(code), prefix: codePrefixOf(code) }) };
}

export function cardRow(issuer: Issuer, draft: CardDraft, now: Date, pinHash: string | null, id: string, transferId: string, code: { hash: string; prefix: string }): NewCard {
  return {
    id,
    mode: issuer.mode,
    code_hash: code.hash,
    code_prefix: code.prefix,
    issuer_type: issuer.type,
    issuer_id: issuer.id,
    issuer_wallet_id: issuer.walletId,
    issuer_handle: issuer.handle,
    source: draft.source,
    batch_id: draft.batchId,
    program_id: draft.programId,
    external_ref: draft.externalRef,
    reward_rule_id: draft.rewardRuleId,
    amount: draft.amount,
    currency: draft.currency,
    status: draft.deliverAt ? 'scheduled' : 'active',
    message: draft.message,
    pin_hash: pinHash,
    locked_to_handle: draft.lockedToHandle,
    design_theme: draft.designTheme,
    brand: draft.brand,
    multi_merchant: draft.multiMerchant,
    expires_at: addMonths(now, draft.expiresInMonths),
    deliver_to_handle: draft.deliverToHandle,
    deliver_to_wallet_id: draft.deliverToWalletId,
    deliver_at: draft.deliverAt,
    subscription_plan_id: draft.subscriptionPlanId,
    gift_months: draft.giftMonths,
    issue_transfer_id: transferId,
    created_at: now,
  };
}

export function liability(currency: string): AccountRef {
  return systemAccount('gift_card_liability', currency);
}

/** Issuer wallet -> liability, one pair of legs per currency. */
export function fundingLegs(issuerWalletId: string, totals: Map<string, number>): TransferLeg[] {
  const legs: TransferLeg[] = [];
  for (const [currency, total] of totals) {
    if (total === 0) continue;
    if (!Number.isSafeInteger(total)) throw unprocessable('amount_too_large', 'The total value of the cards is too large');
    legs.push({ account: walletAccount(issuerWalletId, currency), amount: -total });
    legs.push({ account: liability(currency), amount: total });
  }
  return legs;
}

export function sumByCurrency(cards: readonly { currency: string; amount: number }[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const card of cards) totals.set(card.currency, (totals.get(card.currency) ?? 0) + card.amount);
  return totals;
}

/**
 * Funds the rows that fit the issuer's balance, in order, under a lock on its accounts: a row
 * that does not fit fails with insufficient_funds and the others still go through.
 */
export async function allocate<T extends { draft: CardDraft }>(tx: Queryable, issuer: Issuer, rows: readonly T[]): Promise<{ fitting: T[]; refused: T[] }> {
  const currencies = [...new Set(rows.map((row) => row.draft.currency))];
  const balances = await lockWalletBalances(tx, issuer.walletId, issuer.mode, currencies);
  const fitting: T[] = [];
  const refused: T[] = [];
  for (const row of rows) {
    const left = balances.get(row.draft.currency) ?? 0;
    if (row.draft.amount <= left) {
      balances.set(row.draft.currency, left - row.draft.amount);
      fitting.push(row);
    } else {
      refused.push(row);
    }
  }
  return { fitting, refused };
}
