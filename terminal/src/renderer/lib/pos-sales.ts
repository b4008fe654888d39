import type { MangoQuery } from 'rxdb';
import type { Cart, SaleLine } from '@tapline/shared/cart';
import { toMajor } from '@tapline/shared/money';
import type { OfflinePaymentDoc, SyncDocument } from '@tapline/shared/sync-protocol';
import { type Api, ApiError, FINAL_STATUSES, type PosSession, isUnreachable } from './api.ts';
import type { OfflinePaymentCollection, PosSaleCollection } from './replica.ts';
import type { PushGate } from './sync.ts';
import { isWithdrawn } from './offline-payments.ts';
import { sessionItems } from './till-cart.ts';

/**
 * A sale charged through the server (a POS session), kept in the replica from Charge on, so a
 * reload or a crash of the kiosk never loses it: the terminal finds it again, asks the server
 * what became of it, shows that and prints its receipt once. Local to this terminal: it is not
 * replicated (the server has the session itself).
 */
export const POS_SALE_STATUSES = ['opening', 'pending', 'completed', 'failed', 'expired', 'cancelled'] as const;
/** opening: Charge pressed, no session yet. The others are the session's, as the server last answered. */
export type PosSaleStatus = (typeof POS_SALE_STATUSES)[number];

/**
 * What the terminal did on its own while the server could not be reached: the cashier cancelled
 * (or took the sale offline instead, which cancels it too), or the countdown ran out. The
 * server's answer, when it comes, wins.
 */
export const POS_SALE_LOCAL_ENDS = ['cancelled', 'timed_out'] as const;
export type PosSaleLocalEnd = (typeof POS_SALE_LOCAL_ENDS)[number];

export interface PosSaleDoc {
  /** Made by the terminal at Charge: also the Idempotency-Key of POST /api/pos/sessions. */
  id: string;
  terminalId: string;
  amountMinor: number;
  currency: string;
  description: string;
  /** When Charge was pressed (this machine's clock). */
  capturedAt: string;
  status: PosSaleStatus;
  sessionId?: string;
  qrPayload?: string;
  /** When the countdown ends, on this machine's clock (the session's lifetime from its answer). */
  deadlineAt?: string;
  payerHandle?: string;
  walletRef?: string;
  tagId?: string;
  completedAt?: string;
  endedAt?: string;
  errorMessage?: string;
  localEnd?: PosSaleLocalEnd;
  /** The offline payment taken instead of this sale: it is not sent before the server confirms this sale did not complete. */
  offlinePaymentId?: string;
  /** The receipt was handed to the printer: a resumed sale does not print again. */
  receiptPrinted?: boolean;
  /** The cashier left the outcome: only a sale without it is resumed at start. */
  closedAt?: string;
  /** A sale from the cart: its lines and cart discount (minor units), sent as the session's items and printed on the receipt. */
  items?: SaleLine[];
  discountMinor?: number;
  /** A tap for part of a split sale (lib/split-sale.ts): that sale's id. Its screen is the split sale's, not the sale's own. */
  tenderOf?: string;
  /** The till staff member who charged it (lib/cashier.svelte.ts), sent with the session. */
  cashierId?: string;
}

/** The cart a stored sale was charged with, or null for a keypad amount. */
export function saleCart(doc: Pick<PosSaleDoc, 'items' | 'discountMinor'>): Cart | null {
  return doc.items === undefined || doc.items.length === 0 ? null : { lines: doc.items, discount: doc.discountMinor ?? 0 };
}

export function isServerFinal(doc: Pick<PosSaleDoc, 'status'>): boolean {
  return FINAL_STATUSES.has(doc.status as PosSession['status']);
}

/** The server's fields of a session onto the stored sale. */
function fromSession(session: PosSession): Partial<PosSaleDoc> {
  const fields: Partial<PosSaleDoc> = { status: session.status === 'tapped' || session.status === 'processing' ? 'pending' : session.status, sessionId: session.sessionId, qrPayload: session.qrPayload };
  for (const name of ['payerHandle', 'walletRef', 'tagId', 'completedAt', 'endedAt', 'errorMessage'] as const) {
    if (session[name] !== undefined) fields[name] = session[name];
  }
  return fields;
}

/** How often unresolved sales are asked about (the open one is the customer's, so: often). */
export const POS_SALE_POLL_MS = 1_000;

/**
 * The stored sales and their sessions on the server: opening them, applying every answer the
 * server gives (poll, tap, cancel), the cashier's local ends while the server is unreachable,
 * and, when it is back, sending the cancels and reading the real outcome.
 */
export class PosSales {
  readonly #collection: PosSaleCollection;
  readonly #api: Api;
  readonly #terminalId: string;
  /** One resolution per sale at a time (the poll loop and the push gate may ask together). */
  readonly #inFlight = new Map<string, Promise<PosSaleDoc>>();

  constructor(collection: PosSaleCollection, api: Api, terminalId: string) {
    this.#collection = collection;
    this.#api = api;
    this.#terminalId = terminalId;
  }

  get collection(): PosSaleCollection {
    return this.#collection;
  }

  async get(id: string): Promise<PosSaleDoc | null> {
    return (await this.#collection.findOne(id).exec())?.toMutableJSON() ?? null;
  }

  /** The sale left open (not closed by the cashier), newest first: resumed at start. */
  async open(): Promise<PosSaleDoc | null> {
    // A split sale's tap is shown by its split sale (lib/split-sale.ts), not on its own.
    const query = { selector: { closedAt: { $exists: false }, tenderOf: { $exists: false } }, sort: [{ capturedAt: 'desc' }] } as MangoQuery<PosSaleDoc>;
    return (await this.#collection.findOne(query).exec())?.toMutableJSON() ?? null;
  }

  /**
   * Charge: stored first, then the session is opened with the sale's id as its Idempotency-Key, so
   * a request repeated after a lost answer (or a reload) gets the same session. When the server
   * refuses or cannot be reached, nothing could be paid (no code was shown): the sale is removed
   * and the error thrown for the Sale screen.
   */
  async charge(sale: { amountMinor: number; currency: string; description: string; cart?: Cart; tenderOf?: string; cashierId?: string }, now: Date, id: string = crypto.randomUUID()): Promise<PosSaleDoc> {
    const { cart, tenderOf, cashierId, ...fields } = sale;
    const lines = cart === undefined || cart.lines.length === 0 ? {} : { items: cart.lines, discountMinor: cart.discount };
    const doc: PosSaleDoc = { id, terminalId: this.#terminalId, ...fields, ...lines, ...(tenderOf === undefined ? {} : { tenderOf }), ...(cashierId === undefined ? {} : { cashierId }), capturedAt: now.toISOString(), status: 'opening' };
    await this.#collection.insert(doc);
    // Registered as this sale's resolution, so the poll loop does not send the request a second time.
    const work = this.#openSession(doc).finally(() => this.#inFlight.delete(doc.id));
    this.#inFlight.set(doc.id, work);
    return work;
  }

  /** A sale found 'opening' after a reload: the same request again (the server replays it). */
  resumeOpening(doc: PosSaleDoc): Promise<PosSaleDoc> {
    return this.#openSession(doc);
  }

  async #openSession(doc: PosSaleDoc): Promise<PosSaleDoc> {
    let session: PosSession;
    const cart = saleCart(doc);
    try {
      session = await this.#api.createSession(
        {
          amount: toMajor(doc.amountMinor, doc.currency),
          currency: doc.currency,
          ...(doc.description === '' ? {} : { description: doc.description }),
          ...(cart === null ? {} : sessionItems(cart, doc.currency)),
          ...(doc.tenderOf === undefined ? {} : { tenderOf: doc.tenderOf }),
          ...(doc.cashierId === undefined ? {} : { cashierId: doc.cashierId }),
        },
        doc.id,
      );
    } catch (error) {
      await (await this.#collection.findOne(doc.id).exec())?.remove();
      throw error;
    }
    // The countdown runs on this machine's clock over the session's lifetime, so a skewed clock
    // between terminal and server does not shorten or stretch it.
    const lifetimeMs = Date.parse(session.expiresAt) - Date.parse(session.createdAt);
    return this.#patch(doc.id, { ...fromSession(session), deadlineAt: new Date(Date.now() + lifetimeMs).toISOString() });
  }

  /** Any answer of the server about this sale's session (a poll, a tap, a cancel). */
  apply(id: string, session: PosSession): Promise<PosSaleDoc> {
    return this.#patch(id, fromSession(session));
  }

  /**
   * Asks the server what became of the sale, and sends the cashier's cancel if it is still
   * pending there. Answers the stored sale; throws when the server cannot be reached or refuses.
   */
  resolve(id: string): Promise<PosSaleDoc> {
    const running = this.#inFlight.get(id);
    if (running !== undefined) return running;
    const work = this.#resolve(id).finally(() => this.#inFlight.delete(id));
    this.#inFlight.set(id, work);
    return work;
  }

  async #resolve(id: string): Promise<PosSaleDoc> {
    const doc = await this.get(id);
    if (doc === null) throw new Error(`no sale ${id}`);
    if (isServerFinal(doc)) return doc;
    if (doc.status === 'opening' || doc.sessionId === undefined) {
      // Charge was pressed but the answer never came: the same request again is safe.
      if (doc.localEnd === undefined) return this.#openSession(doc);
      await (await this.#collection.findOne(id).exec())?.remove();
      return { ...doc, status: 'cancelled' };
    }
    let session: PosSession;
    try {
      session = await this.#api.session(doc.sessionId);
    } catch (error) {
      // The server does not know the session (lost in a database crash before anyone could pay it).
      if (error instanceof ApiError && error.status === 404) return this.#patch(id, { status: 'expired', errorMessage: 'The server has no record of this sale: nothing was paid.' });
      throw error;
    }
    if (session.status === 'pending' && doc.localEnd === 'cancelled') {
      try {
        session = await this.#api.cancel(doc.sessionId);
      } catch (error) {
        // Paid or expired in the meantime: what it became is the answer.
        if (!(error instanceof ApiError) || isUnreachable(error)) throw error;
        session = await this.#api.session(doc.sessionId);
      }
    }
    return this.apply(id, session);
  }

  /**
   * The cashier cancels. Online the server cancels it (or says what it became meanwhile); when
   * the server cannot be reached the sale ends here at once and the cancel is sent when it is back.
   */
  async cancel(id: string): Promise<PosSaleDoc> {
    const doc = await this.get(id);
    if (doc === null) throw new Error(`no sale ${id}`);
    if (doc.sessionId === undefined) return this.endLocally(id, 'cancelled');
    try {
      return await this.apply(id, await this.#api.cancel(doc.sessionId));
    } catch (error) {
      if (isUnreachable(error)) return this.endLocally(id, 'cancelled');
      if (error instanceof ApiError) return this.resolve(id).catch(() => this.endLocally(id, 'cancelled'));
      throw error;
    }
  }

  /** The sale ends on this terminal without the server (cancelled, taken offline, or out of time). */
  endLocally(id: string, end: PosSaleLocalEnd, fields: Partial<PosSaleDoc> = {}): Promise<PosSaleDoc> {
    return this.#patch(id, { localEnd: end, ...fields });
  }

  /** The offline payment taken instead: stored before the payment is, so the push gate always knows. */
  link(id: string, offlinePaymentId: string): Promise<PosSaleDoc> {
    return this.#patch(id, { offlinePaymentId });
  }

  async linkedTo(offlinePaymentId: string): Promise<PosSaleDoc | null> {
    return (await this.#collection.findOne({ selector: { offlinePaymentId } } as MangoQuery<PosSaleDoc>).exec())?.toMutableJSON() ?? null;
  }

  markPrinted(id: string): Promise<PosSaleDoc> {
    return this.#patch(id, { receiptPrinted: true });
  }

  close(id: string, now: Date): Promise<PosSaleDoc> {
    return this.#patch(id, { closedAt: now.toISOString() });
  }

  /** Sales whose outcome the server has not given yet, oldest first. */
  async unresolved(): Promise<PosSaleDoc[]> {
    const query = { selector: { status: { $in: ['opening', 'pending'] } }, sort: [{ capturedAt: 'asc' }] } as MangoQuery<PosSaleDoc>;
    return (await this.#collection.find(query).exec()).map((doc) => doc.toMutableJSON());
  }

  async #patch(id: string, fields: Partial<PosSaleDoc>): Promise<PosSaleDoc> {
    const stored = await this.#collection.findOne(id).exec();
    if (stored === null) throw new Error(`no sale ${id}`);
    // A final answer is never replaced by an older, pending one (a slow poll after a tap).
    const next = isServerFinal(stored) && fields.status !== undefined && !FINAL_STATUSES.has(fields.status as PosSession['status']) ? { ...fields, status: stored.status } : fields;
    const updated = await stored.incrementalPatch(next);
    return updated.toMutableJSON();
  }
}

/** What a voided offline payment says: the customer had paid the sale by QR after all. */
export const PAID_BY_QR_CODE = 'sale_paid_by_qr';

/**
 * The push gate for offline payments taken instead of a sale the server could not be asked
 * about: before such a payment goes to the server, the sale's session is resolved (its cancel
 * sent). If the customer had paid it by QR meanwhile, the payment is never sent and stays here
 * declined, so the customer is not charged twice; otherwise it is pushed as usual. A sale that
 * cannot be resolved yet holds the push (RxDB retries it). A split sale's offline tap withdrawn
 * when the sale was cancelled before it synced (lib/offline-payments.ts, withdrawnTap) is never sent.
 */
export function offlinePaymentGate(sales: PosSales, now: () => Date = () => new Date(), payments: OfflinePaymentCollection | null = null): PushGate {
  return async (collection, docs) => {
    const kept = new Map<string, SyncDocument>();
    if (collection !== 'offline_payments') return kept;
    for (const doc of docs as OfflinePaymentDoc[]) {
      // A split sale's offline tap withdrawn when the sale was cancelled offline: never sent. The
      // replica is read again: the push may have been asked for before the tap was withdrawn.
      const current = isWithdrawn(doc) ? doc : ((await payments?.findOne(doc.id).exec())?.toMutableJSON() ?? doc);
      if (isWithdrawn(current)) {
        kept.set(doc.id, current);
        continue;
      }
      if (doc.status !== 'queued') continue;
      const sale = await sales.linkedTo(doc.id);
      if (sale === null) continue;
      const resolved = await sales.resolve(sale.id);
      if (resolved.status === 'completed') {
        kept.set(doc.id, {
          ...doc,
          status: 'declined',
          declineCode: PAID_BY_QR_CODE,
          declineReason: 'The customer had already paid this sale by QR code; this offline payment was not sent, so nothing was charged twice',
          settledAt: now().toISOString(),
        });
      }
    }
    return kept;
  };
}
