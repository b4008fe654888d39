import type { GiftCardSaleReceipt, MerchantHeader, OfflinePaymentReceipt, PosPaymentReceipt, ReceiptSettings } from '@tapline/hardware/src/printer/layouts.ts';
import { toMinor } from '@tapline/shared/money';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import type { PosContext, PosSession } from './api.ts';
import { type GiftCardSale, printedExpiry } from './gift-card-sales.ts';
import type { TerminalConfig } from './terminal-config.ts';

export interface ReceiptRequest {
  merchant: MerchantHeader;
  settings: ReceiptSettings;
  receipt: PosPaymentReceipt | OfflinePaymentReceipt | GiftCardSaleReceipt;
  /** One job per sale: a second request for the same sale does not print twice. */
  jobId: string;
}

/** The POS payment receipt of a completed session (hardware/src/printer/layouts.ts lays it out). */
function header(context: PosContext, config: TerminalConfig): Pick<ReceiptRequest, 'merchant' | 'settings'> {
  return {
    merchant: { name: context.merchant.name, handle: context.merchant.handle },
    settings: { ...config.receipt, ...(context.terminal ? { terminalName: context.terminal.name } : {}) },
  };
}

export function posPaymentReceipt(session: PosSession, context: PosContext, config: TerminalConfig): ReceiptRequest {
  return {
    ...header(context, config),
    receipt: {
      kind: 'pos-payment',
      sessionId: session.sessionId,
      amountMinor: toMinor(session.amount, session.currency),
      currency: session.currency,
      description: session.description,
      payerHandle: session.payerHandle ?? '',
      walletRef: session.walletRef ?? '',
      ...(session.tagId ? { tagId: session.tagId } : {}),
      completedAt: session.completedAt ?? session.endedAt ?? new Date().toISOString(),
    },
    jobId: `pos-${session.sessionId}`,
  };
}

/**
 * The receipt of a payment taken offline, printed when it is taken: the layout marks it
 * "OFFLINE - PENDING SYNC" (it is final only once the server settles it). Job `offline-<id>`.
 */
export function offlinePaymentReceipt(doc: OfflinePaymentDoc, context: PosContext, config: TerminalConfig): ReceiptRequest {
  return {
    ...header(context, config),
    receipt: {
      kind: 'offline-payment',
      paymentId: doc.id,
      method: doc.kind === 'qr' ? 'offline_qr' : 'offline_tap',
      amountMinor: doc.amountMinor,
      currency: doc.currency,
      ...(doc.description === '' ? {} : { description: doc.description }),
      ...(doc.payerHandle === undefined ? {} : { payerHandle: doc.payerHandle }),
      ...(doc.tagId === undefined ? {} : { tagId: doc.tagId }),
      takenAt: doc.capturedAt,
    },
    jobId: `offline-${doc.id}`,
  };
}

/** Printed under the card while its sale waits for the server: the code does not work before. */
export const GIFT_CARD_ACTIVATION_NOTE = 'This card activates when the till is online.';

/**
 * The gift card the customer takes home: the code as QR and text (hardware's gift-card layout),
 * paid in cash at the till. Printed when the sale is stored, online or not, so it says when it
 * activates and prints the earliest expiry the card can get. Job `giftcard-<saleId>`.
 */
export function giftCardSaleReceipt(sale: GiftCardSale, context: PosContext, config: TerminalConfig): ReceiptRequest {
  const { doc, code } = sale;
  const base = header(context, config);
  const footer = doc.status === 'queued' ? [GIFT_CARD_ACTIVATION_NOTE, base.settings.footer].filter(Boolean).join(' ') : base.settings.footer;
  return {
    merchant: base.merchant,
    settings: { ...base.settings, ...(footer === undefined ? {} : { footer }) },
    receipt: {
      kind: 'gift-card-sale',
      receiptNumber: doc.id.slice(0, 12),
      code,
      amountMinor: doc.amountMinor,
      currency: doc.currency,
      expiresAt: doc.expiresAt ?? printedExpiry(doc.capturedAt),
      ...(doc.message === undefined ? {} : { message: doc.message }),
      payment: { method: 'cash', amountMinor: doc.amountMinor },
      soldAt: doc.capturedAt,
    },
    jobId: `giftcard-${doc.id}`,
  };
}
