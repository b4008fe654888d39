import { toMajor } from '@tapline/shared/money';
import type { GiftCardStatus } from '@tapline/shared/schemas';
import { displayHandle } from '../../http/validate.ts';
import type { CardRow, ProgramRow, RedemptionRow, RewardRuleRow } from './store.ts';
import type { ActivationRow, PlanRow } from '../subscriptions/index.ts';

/** Row -> API shapes. Money leaves in major units; handles with their @. */

/** The status a reader sees: an active card past its expiry is expired, even before the job writes it. */
export function effectiveStatus(row: Pick<CardRow, 'status' | 'expires_at'>, now: Date): GiftCardStatus {
  return row.status === 'active' && row.expires_at.getTime() <= now.getTime() ? 'expired' : row.status;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function cardRecord(row: CardRow, now: Date) {
  return {
    id: row.id,
    codePrefix: row.code_prefix,
    status: effectiveStatus(row, now),
    amount: toMajor(row.amount, row.currency),
    amountRemaining: toMajor(row.amount_remaining, row.currency),
    currency: row.currency,
    expiresAt: row.expires_at.toISOString(),
    message: row.message,
    designTheme: row.design_theme,
    brand: row.brand,
    hasPin: row.pin_hash !== null,
    lockedToHandle: row.locked_to_handle ? displayHandle(row.locked_to_handle) : null,
    multiMerchant: row.multi_merchant,
    deliverToHandle: row.deliver_to_handle ? displayHandle(row.deliver_to_handle) : null,
    deliveryScheduledAt: iso(row.deliver_at),
    deliveredAt: iso(row.delivered_at),
    subscriptionPlanId: row.subscription_plan_id,
    giftMonths: row.gift_months,
    source: row.source,
    batchId: row.batch_id,
    programId: row.program_id,
    externalRef: row.external_ref,
    rewardRuleId: row.reward_rule_id,
    issuerType: row.issuer_type,
    issuerId: row.issuer_id,
    issuerHandle: displayHandle(row.issuer_handle),
    mode: row.mode,
    endedAt: iso(row.ended_at),
    endReason: row.end_reason,
    returnedAmount: toMajor(row.returned_amount, row.currency),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type CardRecord = ReturnType<typeof cardRecord>;

/** The issue answer: the record plus the plaintext code and its QR, this once. */
export function issuedRecord(row: CardRow, now: Date, code: string, qrPng: string) {
  return { ...cardRecord(row, now), code, qrPng };
}

export type IssuedRecord = ReturnType<typeof issuedRecord>;

/** The card as a redeemer sees it: no issuer. */
export function redeemedCard(row: CardRow, now: Date) {
  return {
    id: row.id,
    codePrefix: row.code_prefix,
    status: effectiveStatus(row, now),
    amount: toMajor(row.amount, row.currency),
    amountRemaining: toMajor(row.amount_remaining, row.currency),
    currency: row.currency,
    expiresAt: row.expires_at.toISOString(),
    hasPin: row.pin_hash !== null,
    locked: row.locked_to_handle !== null,
    mode: row.mode,
  };
}

export function activationRecord(row: ActivationRow) {
  return {
    id: row.id,
    planId: row.plan_id,
    cardId: row.card_id,
    handle: displayHandle(row.handle),
    months: row.months,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}

/** CONTRACT.md's redemption record. */
export function redemptionRecord(row: RedemptionRow, activation: ActivationRow | undefined) {
  return {
    id: row.id,
    amount_drawn: toMajor(row.amount_drawn, row.currency),
    currency: row.currency,
    credited_amount: toMajor(row.credited_amount, row.credited_currency),
    credited_currency: row.credited_currency,
    fx_rate: Number(row.fx_rate),
    redeemer: displayHandle(row.redeemer_handle),
    timestamp: row.created_at.toISOString(),
    subscription: activation ? activationRecord(activation) : null,
  };
}

export function programRecord(row: ProgramRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    archived: row.status === 'archived',
    mode: row.mode,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function rewardRuleRecord(row: RewardRuleRow) {
  return {
    id: row.id,
    name: row.name,
    minSpend: row.min_spend === 0 ? 0 : toMajor(row.min_spend, row.currency),
    percent: Number(row.percent),
    maxReward: row.max_reward === null ? null : toMajor(row.max_reward, row.currency),
    currency: row.currency,
    status: row.status,
    archived: row.status === 'archived',
    mode: row.mode,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function planRecord(row: PlanRow) {
  return {
    id: row.id,
    name: row.name,
    price: toMajor(row.price, row.currency),
    currency: row.currency,
    interval: row.billing_interval,
    active: row.active,
    mode: row.mode,
    createdAt: row.created_at.toISOString(),
  };
}
