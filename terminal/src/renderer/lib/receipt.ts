import type { MerchantHeader, PosPaymentReceipt, ReceiptSettings } from '@tapline/hardware/src/printer/layouts.ts';
import { toMinor } from '@tapline/shared/money';
import type { PosContext, PosSession } from './api.ts';
import type { TerminalConfig } from './terminal-config.ts';

export interface ReceiptRequest {
  merchant: MerchantHeader;
  settings: ReceiptSettings;
  receipt: PosPaymentReceipt;
  /** One job per session: a second request for the same sale does not print twice. */
  jobId: string;
}

/** The POS payment receipt of a completed session (hardware/src/printer/layouts.ts lays it out). */
export function posPaymentReceipt(session: PosSession, context: PosContext, config: TerminalConfig): ReceiptRequest {
  return {
    merchant: { name: context.merchant.name, handle: context.merchant.handle },
    settings: { ...config.receipt, ...(context.terminal ? { terminalName: context.terminal.name } : {}) },
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
