// Reviewed departures of Paystack's real traffic (and so of the fake, which copies it) from its
// OpenAPI document (vendor/paystack/openapi.yaml), and of the adapter's requests where it follows
// Paystack's other documents. The contract check in test/rails/paystack.test.ts fails on any
// problem not listed here, and on any entry that nothing needed (so the list stays short and true).
// Webhooks have no schema in the document: a transfer event's `data` is held against
// TransferVerifyResponse.data, a charge event's against VerifyResponse.data (the transaction).
import type { KnownMismatch } from './contract.ts';

const RECIPIENT_ANSWERS = ['response transferrecipient_create', 'response transfer_verify', 'response transfer_list', 'webhook'];
const RECIPIENT_PATHS = (field: string) => [`data.${field}`, `data.recipient.${field}`, `data[].recipient.${field}`];
/** ChargeCreateResponse.data's required fields: a completed card charge's. */
const CHARGE_CREATE_FIELDS = ['id', 'domain', 'receipt_number', 'amount', 'message', 'gateway_response', 'paid_at', 'created_at', 'channel', 'currency', 'ip_address', 'metadata', 'log', 'fees', 'fees_split', 'authorization', 'customer', 'plan', 'split', 'order_id', 'paidAt', 'createdAt', 'requested_amount', 'pos_transaction_data', 'source', 'fees_breakdown', 'connect', 'transaction_date', 'plan_object', 'subaccount'];
/** VerifyResponse.data's required fields that Paystack's mobile money charge.success sample (2018) does not carry. */
const CHARGE_EVENT_ABSENT = ['receipt_number', 'split', 'order_id', 'createdAt', 'requested_amount', 'pos_transaction_data', 'source', 'fees_breakdown', 'connect', 'transaction_date', 'plan_object'];

export const KNOWN_MISMATCHES: readonly KnownMismatch[] = [
  { where: RECIPIENT_ANSWERS, path: RECIPIENT_PATHS('email'), keyword: 'type', reason: "A recipient's email arrives null (Paystack's recipient example, the transfer.success sample); the schema types it string." },
  { where: RECIPIENT_ANSWERS, path: RECIPIENT_PATHS('description'), keyword: 'type', reason: "A recipient's description arrives null when none was given (recipient example, failed/reversed samples); the schema types it string." },
  { where: ['response transfer_verify', 'webhook'], path: ['data.recipient.details.account_name'], keyword: 'type', reason: 'account_name is null until Paystack resolves a name (mobile money; all three samples); verify types it string, list and create say nullable.' },
  { where: ['webhook'], path: ['data.integration'], keyword: 'type', reason: 'Webhooks carry the integration as an object {id, is_live, business_name} (all three samples); the API answers its id.' },
  { where: ['webhook transfer.failed', 'webhook transfer.reversed'], path: ['data.createdAt', 'data.updatedAt', 'data.recipient.createdAt', 'data.recipient.updatedAt'], keyword: 'required', reason: 'The failed and reversed samples spell these created_at / updated_at.' },
  { where: ['webhook transfer.failed', 'webhook transfer.reversed'], path: ['data.gateway_response'], keyword: 'required', reason: 'The failed and reversed samples have no gateway_response.' },
  { where: ['request transferrecipient_create'], path: ['type'], keyword: 'enum', matching: '"kepss"', reason: "Kenyan bank recipients are kepss, the bank list's channel for Kenya (GET /bank type enum); the recipient enum omits it." },
  { where: ['request transferrecipient_create'], path: ['type'], keyword: 'enum', matching: '"mobile_money_business"', reason: 'M-PESA tills are mobile_money_business recipients (doc-code-snippets transfer-recipient-mpesa); the recipient enum omits it.' },
  { where: ['response charge_create 200'], path: CHARGE_CREATE_FIELDS.map((field) => `data.${field}`), keyword: 'required', reason: "A mobile money charge in progress is answered {reference, status, display_text} only (Paystack's samples mobile-airtel-mtn and mobile-mpesa: pay_offline, mobile-vodafone: send_otp, mobile-response-late: pending); the schema describes a completed card charge." },
  { where: ['webhook charge.success'], path: CHARGE_EVENT_ABSENT.map((field) => `data.${field}`), keyword: 'required', reason: "Paystack's mobile money charge.success sample (payment-methods/mobile-event) has none of these newer transaction fields." },
  { where: ['webhook charge.success'], path: ['data.customer.international_format_phone'], keyword: 'required', reason: 'The mobile money charge.success sample has no international_format_phone.' },
  { where: ['webhook charge.success'], path: ['data.authorization.signature'], keyword: 'type', reason: 'A mobile money authorization has no card signature: null in the charge.success sample; verify types it string.' },
  { where: ['webhook charge.success'], path: ['data.plan'], keyword: 'type', reason: 'The charge.success sample carries plan as {} (no plan); verify types it a nullable string.' },
  { where: ['request transfer_list'], path: ['query.perPage'], keyword: 'unknown-param', reason: "The document names List Transfers' page size per_page, Paystack's API reference and answers perPage: the adapter sends both." },
  { where: ['response transaction_list 200'], path: ['data[].paidAt'], keyword: 'type', reason: 'A transaction not paid (pending, failed) has no payment time: paidAt is null as paid_at is (which the list schema marks nullable); the schema types paidAt a string.' },
  { where: ['response transaction_list 200'], path: ['data[].authorization.account_name'], keyword: 'required', reason: "A bank transfer into a dedicated account carries the authorization of Paystack's DVA charge.success snippet (payments/dedicated-virtual-account/event-snippet), which has no account_name; the list schema requires it." },
];

/**
 * The same for dedicated virtual accounts (wallet top-ups by bank transfer), checked by
 * test/rails/paystack-virtual-accounts.test.ts (which also fails on an entry nothing needed).
 */
export const DVA_KNOWN_MISMATCHES: readonly KnownMismatch[] = [
  { where: ['response dedicatedAccount_availableProviders 200'], path: ['data'], keyword: 'type', reason: "Paystack's providers answer (doc-code-snippets api/dedicated-virtual-account/providers) is a list of {provider_slug, bank_id, bank_name, id}; the document answers it with the generic Ok response, whose data is an object." },
  { where: ['response transaction_verify 200'], path: ['data.authorization.signature'], keyword: 'type', reason: "A bank transfer into a dedicated account has no card signature: null in Paystack's DVA charge.success authorization (payments/dedicated-virtual-account/event-snippet); verify types it string." },
];
