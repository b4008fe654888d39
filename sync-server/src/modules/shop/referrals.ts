import { toMinor } from '@tapline/shared/money';
import type { CreateReferralBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, pgErrorCode } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { parseTime, storeModeOf } from './common.ts';
import { parsePercent, referralRefusal } from './pricing.ts';
import { referralRecord } from './records.ts';
import { findReferral, findReferralByCode, insertReferral, listReferrals, saveReferral } from './store.ts';

/**
 * Referral (promo) codes: percent or fixed (fixed in one currency, applied only to orders in it),
 * optional maxUses and expiresAt, an active switch. Codes are case-insensitive (stored upper
 * case) and unique per mode. A use is counted at checkout by one conditional update
 * (uses < maxUses) in the order's transaction, so the limit holds under concurrency. A refund
 * does not give the use back (as Stripe's promotion codes): a limited code is not recycled.
 */

/** The canonical form of a code a buyer typed: trimmed, upper case. */
export function canonicalCode(input: string): string {
  return input.trim().toUpperCase();
}

export async function createReferral(context: AppContext, body: CreateReferralBody) {
  const now = context.now();
  const mode = storeModeOf(body.mode);
  let discount: { discount_percent: string | null; discount_amount: number | null; currency: string | null };
  if (body.discountType === 'percent') {
    if (body.currency !== undefined) throw badRequest('currency_not_allowed', 'A percent code takes no currency');
    discount = { discount_percent: parsePercent(body.discountValue, true), discount_amount: null, currency: null };
  } else {
    if (!body.currency) throw badRequest('currency_required', 'A fixed code needs the currency of its amount');
    const currency = supportedCurrency(body.currency);
    discount = { discount_percent: null, discount_amount: toMinor(body.discountValue, currency), currency };
  }
  const expiresAt = body.expiresAt ? parseTime(body.expiresAt, 'expiresAt') : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw badRequest('expires_in_past', 'expiresAt must be in the future');
  try {
    const row = await insertReferral(context.db, {
      id: newId('ref'),
      mode,
      code: canonicalCode(body.code),
      description: body.description?.trim() || null,
      discount_type: body.discountType,
      ...discount,
      max_uses: body.maxUses ?? null,
      uses: 0,
      expires_at: expiresAt,
      active: body.active ?? true,
      created_at: now,
      updated_at: now,
    });
    return referralRecord(row);
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw conflict('referral_code_taken', `The code ${canonicalCode(body.code)} already exists in ${mode} mode`);
    throw error;
  }
}

export async function updateReferral(
  context: AppContext,
  id: string,
  body: { active?: boolean | undefined; maxUses?: number | null | undefined; expiresAt?: string | null | undefined; description?: string | null | undefined },
) {
  const current = await findReferral(context.db, id);
  if (!current) throw notFound('referral_not_found', `No referral code ${id}`);
  const maxUses = body.maxUses === undefined ? current.max_uses : body.maxUses;
  if (maxUses !== null && maxUses < current.uses) throw badRequest('max_uses_below_uses', `The code was used ${current.uses} times: maxUses must be at least that`);
  const row = await saveReferral(context.db, {
    ...current,
    active: body.active ?? current.active,
    max_uses: maxUses,
    expires_at: body.expiresAt === undefined ? current.expires_at : body.expiresAt === null ? null : parseTime(body.expiresAt, 'expiresAt'),
    description: body.description === undefined ? current.description : body.description?.trim() || null,
    updated_at: context.now(),
  });
  return referralRecord(row);
}

export async function adminListReferrals(context: AppContext, query: { limit?: number | undefined; offset?: number | undefined; mode?: Mode | undefined }) {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const page = await listReferrals(context.db, storeModeOf(query.mode), limit, offset);
  return { data: page.rows.map(referralRecord), total: page.total, limit, offset };
}

/**
 * Public validation. An unknown, inactive, expired or used-up code answers 200 {valid: false,
 * reason} rather than 404: the question "is this code good?" has an answer either way, and a
 * checkout form shows the reason (Stripe's promotion-code lookups likewise answer a list, empty
 * for an unknown code, rather than an error).
 */
export async function validateReferral(context: AppContext, body: { code: string; mode?: Mode | undefined }) {
  const code = canonicalCode(body.code);
  const row = /^[A-Z0-9_-]{3,32}$/.test(code) ? await findReferralByCode(context.db, storeModeOf(body.mode), code) : undefined;
  const reason = referralRefusal(row, context.now());
  if (!row || reason) {
    return { valid: false, code, discountType: row?.discount_type ?? null, discountValue: null, currency: null, reason, expiresAt: null, usesLeft: null };
  }
  const record = referralRecord(row);
  return {
    valid: true,
    code: row.code,
    discountType: row.discount_type,
    discountValue: record.discountValue,
    currency: row.currency,
    reason: null,
    expiresAt: record.expiresAt,
    usesLeft: row.max_uses === null ? null : row.max_uses - row.uses,
  };
}
