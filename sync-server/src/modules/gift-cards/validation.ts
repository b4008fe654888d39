import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import { GIFT_CARD_LIMITS, REFERENCE_LENGTH_MAX, URL_LENGTH_MAX } from '@tapline/shared/limits';
import { MoneyError, toMinor } from '@tapline/shared/money';
import {
  GIFT_CARD_CURRENCIES,
  GIFT_CARD_DESIGN_THEMES,
  type GiftCardBrandConfig,
  type GiftCardDesignTheme,
} from '@tapline/shared/schemas';
import { type ApiError, badRequest } from '../../http/errors.ts';

/**
 * The issue body's rules (spec, "Gift card"; Limits), in one place: the single issue checks
 * them after its JSON schema, and import and program rows, which are validated one by one so a
 * bad row never fails the batch, check them here alone.
 */

export interface CardFields {
  /** Minor units of currency. */
  amount: number;
  currency: string;
  message: string | null;
  pinCode: string | null;
  lockedToHandle: string | null;
  designTheme: GiftCardDesignTheme;
  expiresInMonths: number;
  brand: GiftCardBrandConfig | null;
}

const HANDLE = /^[a-z0-9_.]{3,30}$/;
const PIN = /^[0-9]{4,8}$/;
const HEX_COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export function isGiftCardCurrency(value: string): boolean {
  return (GIFT_CARD_CURRENCIES as readonly string[]).includes(value);
}

/** A field's rule failed: 400 with a code naming the rule (a row failure in imports). */
function invalid(code: ErrorCodeWith<400>, message: string): ApiError {
  return badRequest(code, message);
}

export function parseHandle(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalid('handle_invalid', `${field} must be an @handle`);
  const handle = value.trim().replace(/^@/, '').toLowerCase();
  if (!HANDLE.test(handle)) throw invalid('handle_invalid', `${field} must be an @handle of 3 to 30 of a-z, 0-9, _ and .`);
  return handle;
}

export function parseCurrency(value: unknown): string {
  if (typeof value !== 'string' || !isGiftCardCurrency(value)) {
    throw invalid('currency_not_supported', `currency must be one of ${GIFT_CARD_CURRENCIES.join(', ')}`);
  }
  return value;
}

/** Major units (number or decimal string) to minor units; the MoneyError codes name the rule. */
export function parseAmount(value: unknown, currency: string, field = 'amount'): number {
  if (typeof value !== 'number' && typeof value !== 'string') throw invalid('amount_invalid', `${field} must be a number`);
  try {
    return toMinor(value, currency);
  } catch (error) {
    if (error instanceof MoneyError) throw invalid(error.code, `${field}: ${error.message}`);
    throw error;
  }
}

export function parseMessage(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid('message_invalid', 'message must be a string');
  if (value.length > GIFT_CARD_LIMITS.messageLengthMax) {
    throw invalid('message_too_long', `message must be at most ${GIFT_CARD_LIMITS.messageLengthMax} characters`);
  }
  return value === '' ? null : value;
}

export function parsePin(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !PIN.test(value)) throw invalid('pin_invalid', 'pinCode must be 4 to 8 digits');
  return value;
}

export function parseDesignTheme(value: unknown): GiftCardDesignTheme {
  if (value === undefined || value === null) return 'default';
  if (typeof value !== 'string' || !(GIFT_CARD_DESIGN_THEMES as readonly string[]).includes(value)) {
    throw invalid('design_theme_invalid', `designTheme must be one of ${GIFT_CARD_DESIGN_THEMES.join(', ')}`);
  }
  return value as GiftCardDesignTheme;
}

export function parseExpiresInMonths(value: unknown): number {
  if (value === undefined || value === null) return GIFT_CARD_LIMITS.expiresInMonthsDefault;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < GIFT_CARD_LIMITS.expiresInMonthsMin || value > GIFT_CARD_LIMITS.expiresInMonthsMax) {
    throw invalid('expires_in_months_out_of_range', `expiresInMonths must be an integer from ${GIFT_CARD_LIMITS.expiresInMonthsMin} to ${GIFT_CARD_LIMITS.expiresInMonthsMax}`);
  }
  return value;
}

export function parseBrand(value: unknown): GiftCardBrandConfig | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('brand_config_invalid', 'brandConfig must be an object');
  const input = value as Record<string, unknown>;
  const brand: GiftCardBrandConfig = {};
  if (input.brandName !== undefined) {
    if (typeof input.brandName !== 'string' || input.brandName.trim() === '' || input.brandName.length > 80) {
      throw invalid('brand_name_invalid', 'brandConfig.brandName must be 1 to 80 characters');
    }
    brand.brandName = input.brandName.trim();
  }
  if (input.logoUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = typeof input.logoUrl === 'string' && input.logoUrl.length <= URL_LENGTH_MAX ? new URL(input.logoUrl) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || url.protocol !== 'https:' || !url.hostname) throw invalid('logo_url_must_be_https', 'brandConfig.logoUrl must be an https URL');
    brand.logoUrl = url.toString();
  }
  for (const key of ['primaryColor', 'accentColor'] as const) {
    const colour = input[key];
    if (colour === undefined) continue;
    if (typeof colour !== 'string' || !HEX_COLOUR.test(colour)) throw invalid('colour_invalid', `brandConfig.${key} must be a hex colour such as #1a2b3c`);
    brand[key] = colour.toLowerCase();
  }
  return brand;
}

/** Every field an import row may carry: {amount, currency, message?, designTheme?, expiresInMonths?, lockedToHandle?}. */
export function parseImportRow(row: unknown): CardFields {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw invalid('row_invalid', 'Each row must be an object');
  const input = row as Record<string, unknown>;
  if (input.amount === undefined) throw invalid('amount_required', 'amount is required');
  if (input.currency === undefined) throw invalid('currency_required', 'currency is required');
  const currency = parseCurrency(input.currency);
  return {
    amount: parseAmount(input.amount, currency),
    currency,
    message: parseMessage(input.message),
    pinCode: null,
    lockedToHandle: input.lockedToHandle === undefined || input.lockedToHandle === null ? null : parseHandle(input.lockedToHandle, 'lockedToHandle'),
    designTheme: parseDesignTheme(input.designTheme),
    expiresInMonths: parseExpiresInMonths(input.expiresInMonths),
    brand: null,
  };
}

export interface ProgramRow {
  handle: string;
  amount: number;
  currency: string;
  deliverAt: Date | null;
  externalRef: string | null;
}

/** A program row: {handle, amount, currency, deliverAt?, externalRef?}; deliverAt must be in the future. */
export function parseProgramRow(row: unknown, now: Date): ProgramRow {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw invalid('row_invalid', 'Each row must be an object');
  const input = row as Record<string, unknown>;
  if (input.handle === undefined) throw invalid('handle_required', 'handle is required');
  const handle = parseHandle(input.handle, 'handle');
  if (input.amount === undefined) throw invalid('amount_required', 'amount is required');
  if (input.currency === undefined) throw invalid('currency_required', 'currency is required');
  const currency = parseCurrency(input.currency);
  const amount = parseAmount(input.amount, currency);
  const deliverAt = input.deliverAt === undefined || input.deliverAt === null ? null : parseFutureDate(input.deliverAt, now, 'deliverAt');
  let externalRef: string | null = null;
  if (input.externalRef !== undefined && input.externalRef !== null) {
    if ((typeof input.externalRef !== 'string' && typeof input.externalRef !== 'number') || String(input.externalRef).trim() === '' || String(input.externalRef).length > REFERENCE_LENGTH_MAX) {
      throw invalid('external_ref_invalid', 'externalRef must be 1 to 100 characters');
    }
    externalRef = String(input.externalRef).trim();
  }
  return { handle, amount, currency, deliverAt, externalRef };
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export function parseFutureDate(value: unknown, now: Date, field: string): Date {
  if (typeof value !== 'string' || !ISO_DATETIME.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalid('datetime_invalid', `${field} must be an ISO 8601 datetime with a time zone, e.g. 2030-01-31T09:00:00Z`);
  }
  const date = new Date(value);
  if (date.getTime() <= now.getTime()) throw invalid('deliver_at_must_be_future', `${field} must be in the future`);
  return date;
}

export { addMonths } from '@tapline/shared/gift-card-rules';

/** A percent with at most 2 decimals, over 0 and at most 100, as an exact decimal string. */
export function parsePercent(value: number): string {
  const text = String(value);
  if (!/^\d{1,3}(?:\.\d{1,2})?$/.test(text) || !(value > 0) || value > 100) {
    throw invalid('percent_invalid', 'percent must be over 0 and at most 100, with at most 2 decimals');
  }
  return text;
}
