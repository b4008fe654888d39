/**
 * What money moves for: every transfer kind the server posts, in one typed list, and the builders
 * of the transfer ids that must be derived (one transfer per session, period, order...) so that a
 * retry posts nothing twice. TransferRequest.kind takes only these.
 */
export const TRANSFER_KINDS = [
  // Sandbox and admin money entering the platform
  'wallet_credit',
  'sandbox_float',
  // Payments (POST /api/pay), their settlement, refunds and reversals
  'payment_debit',
  'payment_on_us',
  'payment_settlement',
  'payment_refund',
  'payment_reversal',
  // Migration 044: live payouts' money in flight moved from the shared rail_clearing to its provider's
  'rail_clearing_split',
  // A provider paid Tapline what it collected (modules/reconciliation): platform bank to the provider's clearing
  'rail_settlement',
  'payment_link',
  'wallet_payment',
  // POS, offline terminals, checkout
  'pos_payment',
  'pos_refund',
  'offline_tap',
  'offline_qr_reserve',
  'offline_qr',
  'offline_qr_revoke',
  'offline_qr_release',
  'checkout',
  'checkout_sandbox_collection',
  'pos_collection',
  // Wallet money (docs/wallet-money.md): a holder's top-up from her phone (her withdrawals are payments)
  'wallet_top_up',
  // ... and a bank transfer into her wallet's virtual account (one per provider transaction)
  'wallet_bank_transfer',
  // Bills, payroll, subscriptions
  'bill_debit',
  'bill_settlement',
  'bill_refund',
  'payroll_disbursement',
  'subscription_charge',
  // Gift cards and the shop
  'gift_card_issue',
  'gift_card_redeem',
  'gift_card_subscription',
  'gift_card_expiry',
  'gift_card_cancel',
  'gift_card_refund',
  'gift_card_return',
  // Agents' cash desks
  'agent_cash_in',
  'agent_cash_out',
  // An agent's float topped up from its own mobile money (its settlements are payments, kind agent_settlement)
  'agent_float_top_up',
  // Cash pickup on the agent network (modules/cash-pickup): the platform's commission to the paying agent
  'cash_pickup_commission',
  'store_order',
  'store_refund',
] as const;

export type TransferKind = (typeof TRANSFER_KINDS)[number];

/** Transfer ids derived from what they pay for: the same thing paid again is the same id ('exists'). */
export const transferIds = {
  /** The one transfer of a POS session. */
  posSession: (sessionId: string) => `wtx_pos_${sessionId.replaceAll('-', '')}`,
  /** The one transfer that pays a checkout session. */
  checkout: (sessionId: string) => `checkout:${sessionId}`,
  /** The one transfer that credits a till's mobile-money collection. */
  posCollection: (collectionId: string) => `collection:${collectionId}`,
  /** The one transfer that pays a subscription's period. */
  subscriptionCharge: (subscriptionId: string, period: number) => `subscription_charge:${subscriptionId}:${period}`,
  /** The correcting transfer of a kiosk refund (`rf_…`): merchant back to the wallet that paid. */
  posRefund: (refundId: string) => `wtx_refund_${refundId.slice(3)}`,
  /** The one transfer of an offline payment a terminal captured. */
  offlinePayment: (paymentId: string) => `offline:${paymentId}`,
  /** A step of a payment or bill: `<id>:debit`, `<id>:settle`, `<id>:refund`. */
  step: (id: string, step: 'debit' | 'settle' | 'refund') => `${id}:${step}`,
  /** The one transfer of a recorded provider settlement (modules/reconciliation). */
  railSettlement: (settlementId: string) => `rail_settlement:${settlementId}`,
} as const;
