import { CartError, assertCartMatches } from '@tapline/shared/cart';
import type { TillSaleDoc } from '@tapline/shared/sync-protocol';
import { type MessageKey, type Translator, translator } from '@tapline/shared/i18n';
import { cashChange } from './cash-tender.ts';
import type { OfflineSale } from './offline-payments.ts';

/**
 * A cash sale at the till, the terminal's side: the till sale document (collection `till_sales`)
 * written to the replica the moment the cashier confirms, online or offline alike (cash never
 * needs the server), and pushed once when the till syncs (its id is the idempotency key). The
 * server records it with its lines and stock; no wallet money moves.
 */

export type CashSaleAttempt = { ok: true; doc: TillSaleDoc } | { ok: false; code: string; reason: string };

/**
 * The document of a cash sale, or why it cannot be recorded (checked here, so a sale the server
 * would decline is never written): `sale` is the cart's total and lines, or the typed amount;
 * `tenderedMinor` what the customer handed over. `shopCurrency` is the till's (the server declines
 * a till sale in another currency). `by`: the signed-in cashier and their shift (lib/cashier.svelte.ts),
 * so the sale's cash counts in that shift's expected drawer; nothing when the till has no staff.
 */
export function cashSaleDoc(sale: OfflineSale, tenderedMinor: number, terminalId: string, shopCurrency: string, now: Date, id: string, by: { cashierId?: string; shiftId?: string } = {}): CashSaleAttempt {
  if (!Number.isSafeInteger(sale.amountMinor) || sale.amountMinor < 1) return { ok: false, code: 'invalid_amount', reason: 'The sale has no amount' };
  if (sale.currency !== shopCurrency) return { ok: false, code: 'currency_not_accepted', reason: `Cash sales are recorded in ${shopCurrency}, the shop's currency` };
  if (!Number.isSafeInteger(tenderedMinor) || tenderedMinor < 1) return { ok: false, code: 'cash_short', reason: 'Type the amount the customer handed over' };
  const change = cashChange(sale.amountMinor, tenderedMinor);
  if (!change.ok) return { ok: false, code: 'cash_short', reason: `${change.shortMinor} minor units short` };
  if (sale.items !== undefined) {
    try {
      // The server's own check of the lines against the amount.
      assertCartMatches({ lines: sale.items, discount: sale.discountMinor ?? 0 }, sale.amountMinor);
    } catch (error) {
      if (error instanceof CartError) return { ok: false, code: error.code, reason: error.message };
      throw error;
    }
  }
  const description = sale.description.trim();
  return {
    ok: true,
    doc: {
      id,
      terminalId,
      amountMinor: sale.amountMinor,
      currency: sale.currency,
      capturedAt: now.toISOString(),
      status: 'queued',
      serverSeq: 0,
      tenders: [{ kind: 'cash', amountMinor: sale.amountMinor, tenderedMinor, changeMinor: change.changeMinor }],
      ...(by.cashierId === undefined ? {} : { cashierId: by.cashierId }),
      ...(by.shiftId === undefined ? {} : { shiftId: by.shiftId }),
      ...(description === '' ? {} : { description }),
      ...(sale.items === undefined ? {} : { items: sale.items, discountMinor: sale.discountMinor ?? 0 }),
    },
  };
}

/** A cash sale's cash tender: what was handed over and the change given (a till sale of this kiosk has one). */
export function cashTender(doc: Pick<TillSaleDoc, 'tenders' | 'amountMinor'>): { amountMinor: number; tenderedMinor: number; changeMinor: number } {
  const cash = doc.tenders.filter((tender) => tender.kind === 'cash');
  const amountMinor = cash.reduce((sum, tender) => sum + tender.amountMinor, 0);
  const tenderedMinor = cash.reduce((sum, tender) => sum + (tender.tenderedMinor ?? tender.amountMinor), 0);
  const changeMinor = cash.reduce((sum, tender) => sum + (tender.changeMinor ?? 0), 0);
  return { amountMinor, tenderedMinor, changeMinor };
}

/** For the cashier, in the kiosk's language: what became of a cash sale's record. */
export function cashSaleStatus(doc: Pick<TillSaleDoc, 'status' | 'declineCode'>, words: Translator<MessageKey> = translator('en')): string {
  if (doc.status === 'accepted') return words.t('kiosk.cash.recorded');
  if (doc.status === 'declined') return words.t('kiosk.cash.declined', { code: doc.declineCode ?? 'declined' });
  return words.t('kiosk.cash.waitingToSync');
}

/**
 * The cash sale whose outcome is on screen, kept in localStorage per terminal until the cashier
 * leaves it: a reload or a crash after the sale was written shows its change again (the drawer and
 * the receipt go by the sale's id, so neither happens twice).
 */
const KEY_PREFIX = 'tapline.cashOutcome.';
type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function rememberCashOutcome(terminalId: string, saleId: string, store: Store = localStorage): void {
  store.setItem(KEY_PREFIX + terminalId, saleId);
}

export function loadCashOutcome(terminalId: string, store: Store = localStorage): string | null {
  const saleId = store.getItem(KEY_PREFIX + terminalId);
  return saleId !== null && /^[0-9a-f-]{36}$/i.test(saleId) ? saleId : null;
}

export function forgetCashOutcome(terminalId: string, store: Store = localStorage): void {
  store.removeItem(KEY_PREFIX + terminalId);
}
