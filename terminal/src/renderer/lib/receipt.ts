import type { MerchantHeader, OfflinePaymentReceipt, PosPaymentReceipt, ReceiptSettings } from '@tapline/hardware/src/printer/layouts.ts';
import { toMinor } from '@tapline/shared/money';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import type { PosContext, PosSession } from './api.ts';
import type { TerminalConfig } from './terminal-config.ts';

export interface ReceiptRequest {
  merchant: MerchantHeader;
  settings: ReceiptSettings;
  receipt: PosPaymentReceipt | OfflinePaymentReceipt;
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
