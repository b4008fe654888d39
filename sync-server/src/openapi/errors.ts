import type { PrincipalKind } from '../auth/principal.ts';

/**
 * The error codes an operation can answer, by HTTP status, for the document's error responses.
 * Three sources: the codes of the machinery every route goes through (credentials, validation,
 * idempotency, rate limits, body parsing), which follow from the route's config and schema; the
 * codes a route's own summary and description name ("... answers 410 session_expired"); and,
 * for the flows listed below, the codes of their services. The list says "include": a client
 * must still handle a code it does not know by its status. A status a route declares but for
 * which none of these gives a code is left out of the document (modules declare their error
 * statuses in bulk: a list of POS sessions cannot answer 410), except a 404 on a path with an id.
 *
 * What keeps the lists complete is error-coverage.ts: the test servers record every error a route
 * answers during the server's test suite and fail the suite on any (status, code) its operation
 * does not list here. A new route gets the machinery's codes without a line; a code of its own
 * fails its suite until its summary or description names it, or a line below does.
 */

export interface RouteFacts {
  auth: readonly PrincipalKind[] | undefined;
  idempotency: 'required' | 'optional' | undefined;
  /** The route declares a body schema. */
  hasBody: boolean;
  /** The method carries a body (POST, PUT, PATCH, DELETE): the JSON parser reads whatever is sent, with or without a schema. */
  takesBody: boolean;
  hasInput: boolean;
  /** The names of every property of its params, query and body schemas, at any depth (FIELD_CODES reads them). */
  fields: readonly string[];
  isApi: boolean;
  /** Counted by the rate limits: every /api route but the health probes and the providers' callbacks (auth/rate-limit.ts). */
  rateLimited: boolean;
  text: string;
}

const CREDENTIAL_CODES: Record<PrincipalKind, readonly string[]> = {
  // A dashboard session cookie stands for the merchant too (modules/merchant-users).
  merchant: ['invalid_api_key', 'api_key_expired', 'invalid_session', 'dashboard_session_expired'],
  terminal: ['invalid_terminal_token', 'terminal_revoked'],
  wallet: ['invalid_wallet_token', 'wallet_session_expired'],
  agent: ['invalid_agent_token', 'agent_session_expired'],
  publishable: ['invalid_publishable_key', 'publishable_key_revoked'],
  admin: ['invalid_admin_token'],
};

const WALLET_PIN = { 403: ['wrong_pin'], 429: ['pin_attempts_exceeded'] };
const MONEY_INPUT = { 400: ['amount_invalid', 'amount_too_many_decimals', 'amount_must_not_be_zero', 'amount_must_be_positive', 'amount_too_large', 'currency_not_supported'] };
const MANAGER_PIN = { 403: ['manager_pin_required', 'manager_pin_not_set', 'wrong_manager_pin'], 429: ['manager_pin_locked'] };
const CART = ['items_invalid', 'items_too_many', 'item_product_invalid', 'item_name_invalid', 'item_quantity_invalid', 'item_price_invalid', 'item_discount_invalid', 'item_tax_rate_invalid', 'item_tax_inclusive_invalid', 'discount_invalid', 'items_total_mismatch'];

type Codes = Readonly<Record<number, readonly string[]>>;

/**
 * The shared parsers a field goes through, by its name: money (shared/src/money.ts), countries,
 * currencies and handles (http/validate.ts), callback and webhook URLs (http/webhook-url.ts). A
 * route with such a field in its params, query or body can answer their 400s.
 */
const FIELD_CODES: readonly [RegExp, readonly string[]][] = [
  [/(amount|price)$/i, MONEY_INPUT[400]],
  [/(country|countries)$/i, ['country_not_supported']],
  [/^(from|to)Code$/, ['country_not_supported']],
  [/currency$/i, ['currency_not_supported']],
  [/handle$/i, ['handle_invalid']],
  [/url$/i, ['url_invalid', 'url_not_allowed']],
];

const GIFT_CARD_ISSUE: Codes = {
  400: ['amount_required', 'amount_too_large', 'currency_required', 'currency_mismatch', 'date_invalid', 'deliver_at_after_expiry', 'deliver_at_must_be_future', 'delivery_conflicts_with_lock', 'delivery_incomplete', 'subscription_gift_incomplete'],
  403: ['subscription_gift_merchant_only'],
  404: ['subscription_plan_not_found', 'wallet_not_found'],
  422: ['insufficient_funds', 'subscription_gift_not_divisible'],
  429: ['gift_card_issue_limit'],
};
const GIFT_CARD_REDEEM: Codes = {
  403: ['wrong_pin', 'pin_required', 'handle_locked', 'card_not_accepted'],
  404: ['gift_card_not_found', 'wallet_not_found'],
  409: ['gift_card_used', 'gift_card_cancelled', 'gift_card_refunded', 'gift_card_scheduled', 'gift_card_not_active'],
  410: ['gift_card_expired'],
  422: ['redeem_amount_exceeds_balance', 'amount_too_small_to_convert', 'subscription_gift_not_divisible'],
  429: ['pin_attempts_exceeded'],
};
const PAYROLL_ITEMS: Codes = { 400: ['currency_mismatch', 'item_destination_invalid', 'receiver_invalid', 'receiver_is_sender', 'too_many_items'], 404: ['recipient_not_found'], 409: ['external_ref_taken'] };

/**
 * The services' own codes of the main flows, read from their modules: by operation id, or by a
 * pattern for the surfaces that repeat (gift cards under /api/merchant, /api/wallet, /api/agent).
 */
const FLOW_CODES: readonly [string | RegExp, Codes][] = [
  // The till's cart (shared/src/cart.ts) and the catalogue (modules/products).
  // cashier_unknown: a cashierId that is none of the merchant's till staff or dashboard users (modules/till-staff/cashiers.ts).
  ['createPosSession', { 400: [...MONEY_INPUT[400], ...CART, 'tender_needs_terminal'], 404: ['product_not_found'], 409: ['out_of_stock', 'product_unavailable'], 422: ['cashier_unknown'] }],
  [/^createMerchantProduct$/, { 400: ['invalid_price', 'invalid_tax_rate', 'invalid_image_url', 'stock_required', 'currency_not_supported'], 409: ['sku_taken'] }],
  ['updateMerchantProduct', { 400: ['invalid_price', 'invalid_tax_rate', 'invalid_image_url', 'stock_required'], 404: ['product_not_found'], 409: ['sku_taken'] }],
  [/^(get|archive|unarchive)MerchantProduct$/, { 404: ['product_not_found'], 409: ['sku_taken'] }],
  ['createPosRefund', { 400: ['refund_line_invalid'], 403: MANAGER_PIN[403], 404: ['sale_not_found'], 409: ['sale_not_refundable', 'nothing_to_refund', 'sale_id_ambiguous', 'sale_in_till_sale', 'mobile_money_refund_unavailable', 'sale_changed', 'offline_tap_not_settled'], 422: ['insufficient_funds', 'cashier_unknown', 'amount_not_payable'], 429: MANAGER_PIN[429] }],
  ['getPosSale', { 404: ['sale_not_found'], 409: ['sale_id_ambiguous'] }],
  ['closePosDay', { 403: MANAGER_PIN[403], 429: MANAGER_PIN[429] }],
  ['getPosReport', { 404: ['report_not_found'] }],
  [/^(listMerchantTerminalReports|getMerchantTerminalReport)$/, { 404: ['terminal_not_found', 'report_not_found'] }],
  ['setMerchantTerminalManagerPin', { 404: ['terminal_not_found'] }],
  // Dashboard sessions (modules/merchant-users, auth/dashboard-session.ts).
  ['createAdminMerchant', { 409: ['handle_taken', 'email_taken'] }],
  [/^(getDashboardSession|createDashboardSessionsRevokeAll|createDashboardTotp)$/, { 403: ['session_required'] }],
  ['createDashboardTotpConfirm', { 400: ['invalid_totp_code'], 403: ['session_required'] }],
  ['rotateMerchantKeyPost', { 404: ['api_key_not_found'] }],
  ['rotateMerchantKey', { 403: ['session_has_no_key'] }],
  ['createPayment', {
    400: [...MONEY_INPUT[400], 'receiver_invalid', 'country_not_supported', 'amount_too_small', 'receiver_is_sender', 'quote_mismatch'],
    404: ['recipient_not_found', 'wallet_not_found', 'quote_not_found'],
    410: ['quote_expired'],
    422: ['insufficient_funds', 'rail_unavailable', 'amount_not_payable', 'recipient_tier_limit_exceeded'],
  }],
  // Public, but a credential sent is checked: the owner sees more.
  ['getPayment', { 401: ['invalid_api_key', 'api_key_expired', 'invalid_authorization_header', 'invalid_credential'], 404: ['payment_not_found'] }],
  ['getPosSession', { 404: ['session_not_found'] }],
  ['tapPosSession', { 403: ['tag_disabled', 'pin_required', ...WALLET_PIN[403]], 404: ['session_not_found', 'tag_not_found'], 409: ['session_not_pending', 'out_of_stock', 'product_unavailable'], 410: ['session_expired'], 429: WALLET_PIN[429] }],
  ['cancelPosSession', { 404: ['session_not_found'], 409: ['session_not_pending'], 410: ['session_expired'] }],
  // A merchant paying its own session is not refused: the session ends failed, with an
  // errorMessage that says so (200), as a tap by the merchant's own wearable does.
  ['payPosSession', { 404: ['session_not_found'], 409: ['session_not_pending'], 410: ['session_expired'] }],
  ['createCheckoutSession', { 400: MONEY_INPUT[400], 403: ['origin_not_allowed'] }],
  ['getCheckoutSession', { 404: ['checkout_session_not_found'] }],
  ['payCheckoutSession', { 400: ['payer_is_merchant', 'phone_required', 'pin_required'], 403: WALLET_PIN[403], 404: ['checkout_session_not_found', 'wallet_not_found'], 409: ['checkout_session_not_open'], 410: ['checkout_session_expired'], 422: ['insufficient_funds', 'rail_unavailable'], 429: WALLET_PIN[429] }],
  ['revokeMerchantPublishableKey', { 404: ['publishable_key_not_found'] }],
  ['createWearable', { 403: ['holder_consent_required', 'handle_not_yours', ...WALLET_PIN[403]], 404: ['wallet_not_found'], 429: WALLET_PIN[429] }],
  ['getWearable', { 404: ['tag_not_found'] }],
  ['updateWearable', { 403: ['holder_consent_required', 'handle_not_yours', ...WALLET_PIN[403]], 404: ['tag_not_found', 'wallet_not_found'], 429: WALLET_PIN[429] }],
  ['resolveTag', { 403: ['tag_disabled'], 404: ['tag_not_found'] }],
  [/^getWalletWearable$|^listWalletWearableActivity$/, { 404: ['tag_not_found'], 422: ['no_pin_limit_above_default'] }],
  ['updateWalletWearable', { 400: MONEY_INPUT[400], 404: ['tag_not_found'], 422: ['no_pin_limit_above_default'] }],
  [/^(list|create|delete)WalletWearableMerchants?$/, { 400: ['handle_invalid'], 404: ['tag_not_found', 'merchant_not_found', 'tag_merchant_not_found'] }],
  ['payFromWallet', { 400: ['cannot_pay_self', ...MONEY_INPUT[400]], 404: ['wallet_not_found'], 422: ['insufficient_funds', 'tier_daily_out_limit_exceeded', 'recipient_tier_limit_exceeded'] }],
  ['createWalletSession', { 403: [...WALLET_PIN[403], 'pin_not_set'], 404: ['wallet_not_found'], 429: WALLET_PIN[429] }],
  ['getMerchantWebhookDelivery', { 404: ['delivery_not_found'] }],
  ['redeliverMerchantWebhookDelivery', { 404: ['delivery_not_found'], 409: ['delivery_in_progress'] }],
  [/^(revoke|update)MerchantTerminal$|^getMerchantTerminalOfflineLimits$/, { 404: ['terminal_not_found'] }],
  ['createMerchantTerminalPairingCode', { 404: ['terminal_not_found'], 409: ['terminal_revoked'] }],
  ['payBill', { 400: [...MONEY_INPUT[400], 'account_ref_invalid', 'amount_mismatch', 'amount_out_of_range', 'bill_type_mismatch', 'currency_mismatch', 'plan_invalid'], 404: ['biller_not_found', 'wallet_not_found'], 422: ['insufficient_funds', 'biller_unavailable'] }],
  ['getBillPayment', { 404: ['bill_not_found'] }],
  ['createPaymentLink', { 400: [...MONEY_INPUT[400], 'amount_bounds_invalid', 'amount_bounds_with_fixed_amount', 'amount_required', 'amount_out_of_range', 'expires_at_invalid', 'single_use_conflict'] }],
  [/^(get|deactivate)PaymentLink$/, { 404: ['payment_link_not_found'] }],
  ['payPaymentLink', {
    400: ['amount_mismatch', 'amount_out_of_range', 'amount_required', 'amount_too_small', 'payer_is_merchant'],
    403: WALLET_PIN[403],
    404: ['payment_link_not_found', 'wallet_not_found'],
    409: ['payment_link_already_paid'],
    410: ['payment_link_expired', 'payment_link_inactive'],
    422: ['insufficient_funds'],
    429: WALLET_PIN[429],
  }],
  [/^getPublicFxRate$|^getFxQuote$/, { 400: ['same_country', 'same_currency', 'country_not_supported'], 503: ['fx_unavailable'] }],
  ['getPayIdentity', { 404: ['handle_not_found'] }],
  ['updateWalletDestinations', { 400: ['destinations_invalid'] }],
  [/^create(Merchant|Wallet|Agent)GiftCard$/, GIFT_CARD_ISSUE],
  [/^bulkIssue(Merchant|Wallet|Agent)GiftCards$/, { 400: ['count_out_of_range', 'currency_mismatch'], 422: ['insufficient_funds'] }],
  [/^import(Merchant|Wallet|Agent)GiftCards$/, { 400: ['too_many_rows'], 422: ['insufficient_funds'] }],
  [/^redeem(Merchant|Wallet|Agent)GiftCard$/, GIFT_CARD_REDEEM],
  [/^get(Merchant|Wallet|Agent|Admin)GiftCard$|^list(Merchant|Wallet|Agent|Admin)GiftCardRedemptions$/, { 404: ['gift_card_not_found'] }],
  ['updateAdminGiftCard', { 404: ['gift_card_not_found'], 409: ['gift_card_used', 'gift_card_cancelled', 'gift_card_refunded', 'gift_card_not_active'], 410: ['gift_card_expired'] }],
  ['listAdminGiftCards', { 400: ['date_invalid'] }],
  [/^verifyGiftCard/, { 404: ['gift_card_not_found'], 429: ['verify_rate_limited'] }],
  [/^(get|update)MerchantGiftCardProgram$/, { 404: ['program_not_found'], 409: ['program_archived'] }],
  ['issueMerchantGiftCardProgram', { 404: ['program_not_found'], 409: ['program_archived'], 422: ['insufficient_funds'] }],
  [/^(get|update)MerchantRewardRule$/, { 400: ['percent_invalid'], 404: ['reward_rule_not_found'] }],
  ['createMerchantRewardRule', { 400: ['percent_invalid'] }],
  ['evaluateMerchantReward', { 404: ['wallet_not_found'] }],
  [/^(get|update)MerchantSubscriptionPlan$|^listMerchantSubscriptionPlanActivations$/, { 404: ['subscription_plan_not_found'] }],
  ['createSubscription', {
    400: ['customer_fields_not_allowed', 'customer_handle_required', 'wallet_pin_required'],
    403: WALLET_PIN[403],
    404: ['subscription_plan_not_found', 'wallet_not_found'],
    409: ['subscription_exists', 'subscription_plan_inactive'],
    422: ['cannot_subscribe_to_own_plan', 'insufficient_funds'],
    429: WALLET_PIN[429],
  }],
  [/^getSubscription$|^listSubscriptionCharges$/, { 404: ['subscription_not_found'] }],
  ['cancelSubscription', { 404: ['subscription_not_found'], 409: ['subscription_cancelled'] }],
  ['createPayroll', { ...PAYROLL_ITEMS, 422: ['insufficient_funds', 'rail_unavailable', 'amount_not_payable', 'payroll_run_empty'] }],
  ['createPayrollRun', PAYROLL_ITEMS],
  [/^getPayrollRun$|^listPayrollItems$/, { 404: ['payroll_run_not_found'] }],
  ['submitPayrollRun', { 404: ['payroll_run_not_found'], 409: ['payroll_run_not_draft', 'payroll_run_changed'], 422: ['insufficient_funds', 'rail_unavailable', 'amount_not_payable', 'payroll_run_empty'] }],
  ['cancelPayrollRun', { 404: ['payroll_run_not_found'], 409: ['payroll_run_not_draft'] }],
  ['createPayrollItem', { ...PAYROLL_ITEMS, 404: ['payroll_run_not_found', 'recipient_not_found'], 409: ['payroll_run_not_draft', 'external_ref_taken'] }],
  ['getPayrollItem', { 404: ['payroll_item_not_found'] }],
  ['deletePayrollItem', { 404: ['payroll_item_not_found'], 409: ['payroll_run_not_draft'] }],
  [/^getOfflineQr(Svg)?$/, { 404: ['voucher_not_found'] }],
  ['revokeOfflineQr', { 404: ['voucher_not_found'], 409: ['voucher_not_active'] }],
  ['createOfflineQr', { 400: MONEY_INPUT[400], 422: ['insufficient_funds'] }],
  ['getOfflinePayment', { 404: ['offline_payment_not_found'] }],
  ['getStoreProduct', { 404: ['product_not_found'] }],
  ['createStoreCheckout', {
    400: ['variant_not_found', 'variant_required', 'wallet_pin_required'],
    403: [...WALLET_PIN[403], ...GIFT_CARD_REDEEM[403]!],
    404: ['product_not_found', 'wallet_not_found', 'gift_card_not_found'],
    409: ['out_of_stock', 'flash_sale_sold_out', ...GIFT_CARD_REDEEM[409]!],
    410: ['gift_card_expired'],
    422: ['insufficient_funds', 'referral_invalid', 'referral_currency_mismatch', 'gift_card_currency_mismatch', 'shipping_country_not_available'],
    429: WALLET_PIN[429],
  }],
  ['getStoreOrder', { 404: ['order_not_found'] }],
  ['listStoreMyOrders', { 403: WALLET_PIN[403], 404: ['wallet_not_found'], 429: WALLET_PIN[429] }],
  ['createStoreReview', { 403: [...WALLET_PIN[403], 'order_not_owned'], 404: ['order_not_found', 'product_not_found', 'wallet_not_found'], 409: ['review_exists'], 422: ['order_not_eligible', 'order_product_mismatch'], 429: WALLET_PIN[429] }],
  ['createStoreStockAlert', { 404: ['product_not_found', 'wallet_not_found'] }],
  ['createAdminStoreProduct', { 400: ['available_countries_required', 'base_price_required', 'name_invalid', 'status_invalid', 'variant_invalid', 'variants_required'], 409: ['slug_taken'] }],
  ['updateAdminStoreProduct', { 400: ['available_countries_required', 'name_invalid', 'status_invalid', 'variant_invalid', 'variants_required'], 404: ['product_not_found'], 409: ['slug_taken'] }],
  [/^(get|archive)AdminStoreProduct$/, { 404: ['product_not_found'] }],
  ['createAdminStoreFlashSale', { 400: ['date_invalid', 'discount_too_large', 'end_before_start', 'end_in_past', 'percent_invalid'], 404: ['product_not_found'], 409: ['flash_sale_overlaps'] }],
  ['updateAdminStoreFlashSale', { 400: ['date_invalid', 'discount_too_large', 'end_before_start', 'end_in_past', 'max_units_below_sold'], 404: ['flash_sale_not_found'], 409: ['flash_sale_ended', 'flash_sale_overlaps'] }],
  ['createAdminStoreReferral', { 400: ['currency_not_allowed', 'currency_required', 'expires_in_past', 'percent_invalid'], 409: ['referral_code_taken'] }],
  ['updateAdminStoreReferral', { 400: ['expires_in_past', 'max_uses_below_uses'], 404: ['referral_not_found'] }],
  ['getAdminStoreOrder', { 404: ['order_not_found'] }],
  ['updateAdminStoreOrder', { 404: ['order_not_found'], 409: ['invalid_transition'] }],
  [/^create(AdminMerchant|AdminWallet|AdminAgent)$/, { 409: ['handle_taken'] }],
  [/^(get|update)AdminMerchant$/, { 404: ['merchant_not_found'] }],
  ['creditAdminWallet', { 400: [...MONEY_INPUT[400], 'handle_invalid'], 404: ['wallet_not_found'] }],
  ['createAgentSession', { 401: ['invalid_agent_credentials'] }],
  ['getMetrics', { 401: ['authentication_required', 'invalid_admin_token'], 503: ['metrics_unavailable'] }],
];

/** The keys of the flows' table, for the test that checks each still names an operation. */
export const FLOW_KEYS: readonly (string | RegExp)[] = FLOW_CODES.map(([key]) => key);

function flowCodesOf(operationId: string): Codes | undefined {
  return FLOW_CODES.find(([key]) => (typeof key === 'string' ? key === operationId : key.test(operationId)))?.[1];
}

/** "409 session_not_pending", "400 a / b / c", "422 a, b or c": a status and the codes after it. */
const CODES_IN_TEXT = /\b([45]\d\d)\)?[\s:]+((?:`?[a-z][a-z0-9]*(?:_[a-z0-9]+)+`?(?:\s*(?:\/|,|or)\s*(?=`?[a-z][a-z0-9]*_))?)+)/g;
const CODE = /[a-z][a-z0-9]*(?:_[a-z0-9]+)+/g;

function add(codes: Map<number, Set<string>>, status: number, list: readonly string[]): void {
  if (list.length === 0) return;
  const set = codes.get(status) ?? new Set<string>();
  for (const code of list) set.add(code);
  codes.set(status, set);
}

/** Codes by status for one operation. */
export function errorCodesFor(operationId: string, facts: RouteFacts): Map<number, Set<string>> {
  const codes = new Map<number, Set<string>>();
  // A body sent to a route without a schema is still read: a number in it past the safe range is a validation_failed (http/input-guard.ts).
  if (facts.hasInput || facts.takesBody) add(codes, 400, ['validation_failed']);
  // The input guard (http/input-guard.ts) reads the query string of every route, declared or not,
  // and the JSON body parser (http/json-body.ts) every body sent with a method that has one.
  add(codes, 400, ['invalid_text']);
  if (facts.hasInput) add(codes, 400, ['invalid_parameter']);
  if (facts.hasBody || facts.takesBody) {
    add(codes, 400, ['invalid_json', 'body_too_deep', 'invalid_content_length']);
    add(codes, 413, ['payload_too_large']);
    add(codes, 415, ['unsupported_media_type']);
  }
  for (const [pattern, list] of FIELD_CODES) if (facts.fields.some((field) => pattern.test(field))) add(codes, 400, list);
  if (facts.idempotency) {
    add(codes, 400, facts.idempotency === 'required' ? ['idempotency_key_required', 'idempotency_key_invalid'] : ['idempotency_key_invalid']);
    add(codes, 409, ['idempotency_in_progress']);
    add(codes, 422, ['idempotency_key_reused']);
  }
  if (facts.auth) {
    // Whatever credential is sent is resolved first (auth/hooks.ts): an invalid one of any kind
    // answers its own 401 code, even on a route that would not accept that kind.
    add(codes, 401, ['authentication_required', 'invalid_authorization_header', 'invalid_credential']);
    for (const kind of facts.auth) add(codes, 401, CREDENTIAL_CODES[kind]);
    for (const kindCodes of Object.values(CREDENTIAL_CODES)) add(codes, 401, kindCodes);
    // A dashboard session: its CSRF token and its role, and the mode switch (auth/dashboard-session.ts).
    if (facts.auth.includes('merchant')) {
      add(codes, 400, ['invalid_mode']);
      add(codes, 403, ['csrf_failed', 'role_forbidden']);
    }
  }
  if (facts.isApi) add(codes, 403, ['credential_not_allowed']);
  const flow = flowCodesOf(operationId);
  // A flow's list is read from its service; a route without one lists what its own text names
  // (a flow's text may describe its neighbours' codes too, as POS describes the whole machine).
  if (flow) for (const [status, list] of Object.entries(flow)) add(codes, Number(status), list);
  else for (const match of facts.text.matchAll(CODES_IN_TEXT)) add(codes, Number(match[1]), match[2]!.match(CODE) ?? []);
  if (facts.rateLimited) add(codes, 429, ['rate_limited']);
  // A dropped database connection (http/errors.ts), with Retry-After.
  if (facts.isApi) add(codes, 503, ['database_unavailable']);
  return codes;
}

const STATUS_MEANINGS: Readonly<Record<number, string>> = {
  400: 'The request is invalid',
  401: 'The credential is missing, malformed, unknown, revoked or expired',
  403: 'The credential is valid but not allowed to do this',
  404: 'Not found (or another merchant\'s, or of the other mode)',
  409: 'It conflicts with the current state',
  410: 'Expired',
  413: 'The request body is too large',
  415: 'The request body is not application/json',
  422: 'A business rule refused it',
  429: 'Too many requests; retry after Retry-After seconds',
  500: 'Server fault',
  503: 'Unavailable',
};

/** The description of an error response: what the status means and the codes it carries. */
export function errorDescription(status: number, codes: ReadonlySet<string> | undefined): string {
  const meaning = STATUS_MEANINGS[status] ?? 'Error';
  if (!codes || codes.size === 0) return `${meaning}.`;
  return `${meaning}. Codes include: ${[...codes].map((code) => `\`${code}\``).join(', ')}.`;
}
