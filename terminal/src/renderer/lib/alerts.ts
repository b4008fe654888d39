import type { MangoQuery } from 'rxdb';
import { Observable, type Subscription, merge } from 'rxjs';
import type { GiftCardSaleDoc, OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import type { PosSaleDoc } from './pos-sales.ts';
import type { KioskAlertCollection, Replica } from './replica.ts';
import { isWithdrawn } from './offline-payments.ts';

/**
 * What the cashier must not miss, kept until they acknowledge it (a reload keeps it too): a
 * payment taken offline that the server declined (the customer left with a receipt), a gift card
 * sale declined (the printed card does not work), a sale ended on this terminal while the server
 * was unreachable that the customer had paid after all, a cash sale the server declined to record
 * (the cash is in the drawer, the sale is not in the reports).
 */
export const KIOSK_ALERT_KINDS = ['offline_payment_declined', 'gift_card_sale_declined', 'sale_paid_after_cancel', 'till_sale_declined'] as const;
export type KioskAlertKind = (typeof KIOSK_ALERT_KINDS)[number];
export const KIOSK_ALERT_STATUSES = ['open', 'acknowledged'] as const;

export interface KioskAlertDoc {
  /** `<kind>:<the document's id>`: one alert per event, however often it is seen. */
  id: string;
  kind: KioskAlertKind;
  refId: string;
  amountMinor: number;
  currency: string;
  /** When the payment or sale was taken. */
  capturedAt: string;
  raisedAt: string;
  payer?: string;
  /** A declined tap taken for part of a split sale: that till sale's id (the sale is short by the tap). */
  saleId?: string;
  code?: string;
  reason?: string;
  status: (typeof KIOSK_ALERT_STATUSES)[number];
  acknowledgedAt?: string;
}

function alert(kind: KioskAlertKind, doc: { id: string; amountMinor: number; currency: string; capturedAt: string }, now: Date, fields: Partial<KioskAlertDoc>): KioskAlertDoc {
  const { id, amountMinor, currency, capturedAt } = doc;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== ''));
  return { id: `${kind}:${id}`, kind, refId: id, amountMinor, currency, capturedAt, raisedAt: now.toISOString(), status: 'open', ...defined };
}

export function declinedPaymentAlert(doc: OfflinePaymentDoc, now: Date): KioskAlertDoc {
  return alert('offline_payment_declined', doc, now, { payer: doc.payerHandle ?? doc.tagId, saleId: doc.tenderOf, code: doc.declineCode, reason: doc.declineReason });
}

export function declinedGiftCardAlert(doc: GiftCardSaleDoc, now: Date): KioskAlertDoc {
  return alert('gift_card_sale_declined', doc, now, { payer: `${doc.codePrefix}…`, code: doc.declineCode, reason: doc.declineReason });
}

/** A cash sale the server declined: the money is in the drawer but the sale is not recorded (stock, reports). */
export function declinedTillSaleAlert(doc: TillSaleDoc, now: Date): KioskAlertDoc {
  return alert('till_sale_declined', doc, now, { code: doc.declineCode, reason: doc.declineReason });
}

/**
 * A sale the terminal ended alone (cancelled, or out of time) that the server says was paid:
 * the customer paid by QR while the terminal could not see it. When an offline payment was taken
 * instead, that payment is voided and its own alert says so.
 */
export function paidAfterLocalEndAlert(doc: PosSaleDoc, now: Date): KioskAlertDoc | null {
  if (doc.status !== 'completed' || doc.localEnd === undefined || doc.offlinePaymentId !== undefined) return null;
  return alert('sale_paid_after_cancel', doc, now, { payer: doc.payerHandle, code: 'paid_after_cancel' });
}

/**
 * Raises an alert for every document that needs one and has none yet (an acknowledged alert is
 * not raised again). Returns the function that stops watching.
 */
export function watchForAlerts(replica: Replica, now: () => Date = () => new Date()): () => void {
  const declined = { selector: { status: 'declined' } };
  const candidates: Observable<KioskAlertDoc[]>[] = [
    // A split sale's offline tap withdrawn on cancel was never sent: nothing to alert about.
    observe(replica.payments.find(declined as MangoQuery<OfflinePaymentDoc>).$, (doc: OfflinePaymentDoc) => (isWithdrawn(doc) ? null : declinedPaymentAlert(doc, now()))),
    observe(replica.giftCardSales.find(declined as MangoQuery<GiftCardSaleDoc>).$, (doc: GiftCardSaleDoc) => declinedGiftCardAlert(doc, now())),
    observe(replica.tillSales.find(declined as MangoQuery<TillSaleDoc>).$, (doc: TillSaleDoc) => declinedTillSaleAlert(doc, now())),
    observe(replica.posSales.find({ selector: { status: 'completed', localEnd: { $exists: true } } } as MangoQuery<PosSaleDoc>).$, (doc: PosSaleDoc) => paidAfterLocalEndAlert(doc, now())),
  ];
  // One write at a time, so two emissions of the same document do not race to insert it.
  let writing: Promise<void> = Promise.resolve();
  const subscription: Subscription = merge(...candidates).subscribe((alerts) => {
    writing = writing.then(() => raiseMissing(replica.alerts, alerts)).catch((error: unknown) => console.error('raising alerts failed', error));
  });
  return () => subscription.unsubscribe();
}

function observe<D>(results$: Observable<{ toMutableJSON(): D }[]>, toAlert: (doc: D) => KioskAlertDoc | null): Observable<KioskAlertDoc[]> {
  return new Observable<KioskAlertDoc[]>((subscriber) =>
    results$.subscribe((docs) => subscriber.next(docs.flatMap((doc) => toAlert(doc.toMutableJSON()) ?? []))),
  );
}

async function raiseMissing(alerts: KioskAlertCollection, candidates: KioskAlertDoc[]): Promise<void> {
  if (candidates.length === 0) return;
  const existing = await alerts.findByIds(candidates.map((candidate) => candidate.id)).exec();
  const missing = candidates.filter((candidate) => !existing.has(candidate.id));
  if (missing.length > 0) await alerts.bulkInsert(missing);
}

/** The cashier has seen it: it stops showing, and is never raised again. */
export async function acknowledgeAlert(alerts: KioskAlertCollection, id: string, now: Date): Promise<void> {
  await (await alerts.findOne(id).exec())?.incrementalPatch({ status: 'acknowledged', acknowledgedAt: now.toISOString() });
}

/** Open alerts, oldest first (the first one is what the cashier sees). */
export function openAlerts$(alerts: KioskAlertCollection): Observable<KioskAlertDoc[]> {
  const query = { selector: { status: 'open' }, sort: [{ raisedAt: 'asc' }] } as MangoQuery<KioskAlertDoc>;
  return new Observable<KioskAlertDoc[]>((subscriber) => alerts.find(query).$.subscribe((docs) => subscriber.next(docs.map((doc) => doc.toMutableJSON()))));
}
