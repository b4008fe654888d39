/**
 * The customer display: what the customer sees of the sale on a second screen (a second Electron
 * window on a second display, or a page on a tablet facing them). The kiosk window maps its screen
 * to a `DisplayState` (`displayStateFor`, pure) and publishes it; the display page (Display.svelte,
 * served at /display by the same build) watches it. Both pages are of one origin, so the state goes
 * over a BroadcastChannel, and the last one is kept in localStorage: a display opened or reloaded
 * later shows the current state at once.
 *
 * Everything in a DisplayState is plain data (money in integer minor units), versioned: a display
 * page of another build ignores a state it does not know.
 */
import { type Cart, cartTotals, taxRows } from '@tapline/shared/cart';
import { type Language, isLanguage } from '@tapline/shared/i18n';
import type { OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import { cashTender } from './cash-sales.ts';
import { hostRelay } from './display-relay.ts';
import type { OfflineSale } from './offline-payments.ts';
import { type PosSaleDoc, isServerFinal, saleCart } from './pos-sales.ts';

export const DISPLAY_STATE_VERSION = 1;
export const DISPLAY_CHANNEL = 'tapline.customer-display';
export const DISPLAY_STORAGE_KEY = 'tapline.customerDisplay';

export interface DisplayLine {
  name: string;
  quantity: number;
  unitPriceMinor: number;
  /** The line's own discount (the cart's is in the totals). */
  discountMinor: number;
  /** quantity × unit price − the line's own discount. */
  totalMinor: number;
}

export interface DisplayTax {
  /** Basis points (750 = 7.5 %). */
  rateBps: number;
  included: boolean;
  taxMinor: number;
}

export interface DisplayTotals {
  subtotalMinor: number;
  /** All discounts, the lines' and the cart's. */
  discountMinor: number;
  taxes: DisplayTax[];
  totalMinor: number;
}

/** A tender already paid towards the sale (split tenders): its kind (cash, wallet, gift_card, mobile_money, ...) and amount. */
export interface DisplayTender {
  kind: string;
  amountMinor: number;
}

/** How the customer pays what is due. */
export type DisplayMethod = 'wallet' | 'cash' | 'offline';
export type DisplayResult = 'paid' | 'declined' | 'cancelled' | 'expired';

export type DisplayPhase =
  /** Nothing being sold: the welcome. */
  | { kind: 'idle' }
  /** The cashier is ringing up the cart. */
  | { kind: 'cart' }
  /**
   * The customer is asked to pay. `qrPayload`: the code to scan (a wallet sale the server has
   * opened and can be reached for), else null; `opening`: the code is on its way.
   */
  | { kind: 'pay'; method: DisplayMethod; qrPayload: string | null; opening: boolean }
  /** What became of it; a cash sale's tendered and change. */
  | { kind: 'outcome'; result: DisplayResult; tenderedMinor: number | null; changeMinor: number | null };

export interface DisplayState {
  version: typeof DISPLAY_STATE_VERSION;
  merchantName: string;
  /** The kiosk's language: the display's default (the customer may switch on the display). */
  language: Language;
  currency: string;
  lines: DisplayLine[];
  /** Null without lines (a keypad amount: only `amountDueMinor`). */
  totals: DisplayTotals | null;
  /** What the customer is asked for (the sale's amount), or null when nothing is. */
  amountDueMinor: number | null;
  /** Tenders already paid and what is left (split tenders); [] and null when not split. */
  paidTenders: DisplayTender[];
  remainingMinor: number | null;
  phase: DisplayPhase;
}

/** The kiosk's screen as far as the display cares: App.svelte's `Screen` fits it. */
export interface DisplayScreen {
  name: string;
  saleId?: string;
  sale?: OfflineSale;
  /** A split sale's tip (the split screen), paid on top of the sale. */
  tipMinor?: number;
  doc?: Pick<OfflinePaymentDoc, 'status' | 'amountMinor' | 'currency'> & { items?: OfflineSale['items']; discountMinor?: number };
}

export interface DisplayInput {
  screen: DisplayScreen;
  merchantName: string;
  language: Language;
  /** The till's currency and its cart (the Sale screen's). */
  currency: string;
  cart: Cart;
  /** The server cannot be reached: no code is shown (nobody could pay it). */
  unreachable: boolean;
  /** The stored sale of a pos-sale screen, the till sale of a cash-outcome screen (followDisplay reads them). */
  posSale?: PosSaleDoc | null;
  tillSale?: TillSaleDoc | null;
  /** Split tenders: what is paid already and what is left (the tender flow fills it). */
  tenders?: { remainingMinor: number; paidTenders: DisplayTender[] } | null;
}

/** The lines and totals of a cart, as plain data. */
export function displayCart(cart: Cart | null): { lines: DisplayLine[]; totals: DisplayTotals | null } {
  if (cart === null || cart.lines.length === 0) return { lines: [], totals: null };
  const totals = cartTotals(cart);
  const lines = cart.lines.map((line, index) => {
    const gross = totals.lines[index]?.gross ?? line.quantity * line.unitPrice;
    return { name: line.name, quantity: line.quantity, unitPriceMinor: line.unitPrice, discountMinor: line.discount, totalMinor: gross - line.discount };
  });
  const taxes = taxRows(cart, totals).map((row) => ({ rateBps: row.rate, included: row.included, taxMinor: row.tax }));
  return { lines, totals: { subtotalMinor: totals.subtotal, discountMinor: totals.discount, taxes, totalMinor: totals.total } };
}

function linesOf(sale: { items?: OfflineSale['items']; discountMinor?: number }): Cart | null {
  return saleCart({ items: sale.items === undefined ? undefined : [...sale.items], discountMinor: sale.discountMinor ?? 0 });
}

/** What a stored wallet sale says to the customer. */
function posSalePhase(sale: PosSaleDoc, unreachable: boolean): DisplayPhase {
  if (!isServerFinal(sale) && sale.localEnd === undefined) {
    const qrPayload = unreachable || sale.qrPayload === undefined ? null : sale.qrPayload;
    return { kind: 'pay', method: 'wallet', qrPayload, opening: !unreachable && qrPayload === null };
  }
  const result: DisplayResult =
    sale.status === 'completed' ? 'paid' : sale.status === 'failed' ? 'declined' : sale.status === 'expired' || sale.localEnd === 'timed_out' ? 'expired' : 'cancelled';
  return { kind: 'outcome', result, tenderedMinor: null, changeMinor: null };
}

/**
 * The display's state for the kiosk's screen. Screens that are not the customer's (sign in,
 * history, refunds, reports, shifts, gift cards) show the welcome; the Sale screen shows its cart.
 */
export function displayStateFor(input: DisplayInput): DisplayState {
  const base = {
    version: DISPLAY_STATE_VERSION,
    merchantName: input.merchantName,
    language: input.language,
    paidTenders: input.tenders?.paidTenders.map((tender) => ({ kind: tender.kind, amountMinor: tender.amountMinor })) ?? [],
    remainingMinor: input.tenders?.remainingMinor ?? null,
  } as const;
  const idle: DisplayState = { ...base, currency: input.currency, lines: [], totals: null, amountDueMinor: null, phase: { kind: 'idle' } };
  const { screen } = input;
  switch (screen.name) {
    case 'sale': {
      const shown = displayCart(input.cart);
      if (shown.totals === null) return idle;
      return { ...base, currency: input.currency, ...shown, amountDueMinor: shown.totals.totalMinor, phase: { kind: 'cart' } };
    }
    case 'pos-sale': {
      const sale = input.posSale;
      if (sale === undefined || sale === null || sale.id !== screen.saleId) return idle;
      return { ...base, currency: sale.currency, ...displayCart(saleCart(sale)), amountDueMinor: sale.amountMinor, phase: posSalePhase(sale, input.unreachable) };
    }
    case 'offline':
    case 'cash': {
      const sale = screen.sale;
      if (sale === undefined) return idle;
      const method: DisplayMethod = screen.name === 'cash' ? 'cash' : 'offline';
      return { ...base, currency: sale.currency, ...displayCart(linesOf(sale)), amountDueMinor: sale.amountMinor, phase: { kind: 'pay', method, qrPayload: null, opening: false } };
    }
    case 'split': {
      // Paid by several tenders (or with a tip): what is already paid and what is left.
      const sale = screen.sale;
      if (sale === undefined) return idle;
      return { ...base, currency: sale.currency, ...displayCart(linesOf(sale)), amountDueMinor: sale.amountMinor + (screen.tipMinor ?? 0), phase: { kind: 'pay', method: 'cash', qrPayload: null, opening: false } };
    }
    case 'offline-outcome': {
      const doc = screen.doc;
      if (doc === undefined) return idle;
      const result: DisplayResult = doc.status === 'declined' ? 'declined' : 'paid';
      return { ...base, currency: doc.currency, ...displayCart(linesOf(doc)), amountDueMinor: doc.amountMinor, phase: { kind: 'outcome', result, tenderedMinor: null, changeMinor: null } };
    }
    case 'cash-outcome': {
      const sale = input.tillSale;
      if (sale === undefined || sale === null || sale.id !== screen.saleId) return idle;
      const tender = cashTender(sale);
      const cash = tender.tenderedMinor > 0 ? { tenderedMinor: tender.tenderedMinor, changeMinor: tender.changeMinor } : { tenderedMinor: null, changeMinor: null };
      return { ...base, currency: sale.currency, ...displayCart(linesOf(sale)), amountDueMinor: sale.amountMinor, phase: { kind: 'outcome', result: 'paid', ...cash } };
    }
    default:
      return idle;
  }
}

/** A state read from storage or the channel, or null when it is not one this page knows. */
export function parseDisplayState(raw: unknown): DisplayState | null {
  const value = typeof raw === 'string' ? safeParse(raw) : raw;
  if (value === null || typeof value !== 'object') return null;
  const state = value as Partial<DisplayState>;
  if (state.version !== DISPLAY_STATE_VERSION || !isLanguage(state.language) || typeof state.currency !== 'string' || typeof state.merchantName !== 'string') return null;
  if (!Array.isArray(state.lines) || !Array.isArray(state.paidTenders) || state.phase === null || typeof state.phase !== 'object') return null;
  if (!['idle', 'cart', 'pay', 'outcome'].includes((state.phase as { kind?: unknown }).kind as string)) return null;
  return state as DisplayState;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Where the state goes: a page's BroadcastChannel and localStorage (tests give their own), and
 * the kiosk host's hub for paired tablets (`relay`, lib/display-relay.ts).
 */
export interface DisplayTransport {
  channel: () => Pick<BroadcastChannel, 'postMessage' | 'close'> & { onmessage: ((event: MessageEvent) => void) | null };
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  relay?: (text: string) => void;
}

function pageTransport(): DisplayTransport {
  let storage: Storage | null = null;
  try {
    storage = globalThis.localStorage ?? null;
  } catch {
    storage = null;
  }
  // Served by the kiosk host (http): it relays to tablets. Created once, on the first publish.
  const served = globalThis.location?.protocol === 'http:' || globalThis.location?.protocol === 'https:';
  let relay: ReturnType<typeof hostRelay> | null = null;
  return { channel: () => new BroadcastChannel(DISPLAY_CHANNEL), storage, ...(served ? { relay: (text: string) => (relay ??= hostRelay()).send(text) } : {}) };
}

let publisher: { transport: DisplayTransport; channel: ReturnType<DisplayTransport['channel']>; last: string | null } | null = null;

/** Sends the state to every display (once per change) and keeps it for a display opened later. */
export function publishDisplay(state: DisplayState, transport?: DisplayTransport): void {
  if (publisher === null || (transport !== undefined && publisher.transport !== transport)) {
    publisher?.channel.close();
    const chosen = transport ?? pageTransport();
    publisher = { transport: chosen, channel: chosen.channel(), last: null };
  }
  // JSON: plain data whatever the caller held (Svelte's state proxies cannot be cloned).
  const text = JSON.stringify(state);
  if (text === publisher.last) return;
  publisher.last = text;
  try {
    publisher.transport.storage?.setItem(DISPLAY_STORAGE_KEY, text);
  } catch {
    // A full or missing storage: the channel still carries it.
  }
  publisher.channel.postMessage(text);
  publisher.transport.relay?.(text);
}

/** Closes the publishing channel (tests; a page that stops publishing). */
export function stopPublishing(): void {
  publisher?.channel.close();
  publisher = null;
}

/** Calls `onState` with the kept state at once (if any), then with every state published. Answers the stop. */
export function watchDisplay(onState: (state: DisplayState) => void, transport: DisplayTransport = pageTransport()): () => void {
  let kept: string | null = null;
  try {
    kept = transport.storage?.getItem(DISPLAY_STORAGE_KEY) ?? null;
  } catch {
    kept = null;
  }
  const initial = kept === null ? null : parseDisplayState(kept);
  if (initial !== null) onState(initial);
  const channel = transport.channel();
  channel.onmessage = (event: MessageEvent) => {
    const state = parseDisplayState(event.data);
    if (state !== null) onState(state);
  };
  return () => {
    channel.onmessage = null;
    channel.close();
  };
}

/** The part of an RxDB collection followDisplay reads: one document by id, live. */
interface Followed<T> {
  findOne(id: string): { $: { subscribe(next: (doc: { toMutableJSON(): T } | null) => void): { unsubscribe(): void } } };
}

/**
 * Publishes the display state of `input`, and again whenever the stored sale it shows changes
 * (the pos sale of a wallet sale as the server answers, the till sale of a cash outcome). For
 * App.svelte's one `$effect`: answers the stop.
 */
export function followDisplay(
  input: DisplayInput,
  sources: { posSales: Followed<PosSaleDoc> | null; tillSales: Followed<TillSaleDoc> | null },
  publish: (state: DisplayState) => void = publishDisplay,
): () => void {
  const { screen } = input;
  const follow = <T>(collection: Followed<T> | null, field: 'posSale' | 'tillSale') => {
    if (collection === null || screen.saleId === undefined) {
      publish(displayStateFor(input));
      return () => undefined;
    }
    const subscription = collection.findOne(screen.saleId).$.subscribe((doc) => publish(displayStateFor({ ...input, [field]: doc === null ? null : doc.toMutableJSON() })));
    return () => subscription.unsubscribe();
  };
  if (screen.name === 'pos-sale') return follow(sources.posSales, 'posSale');
  if (screen.name === 'cash-outcome') return follow(sources.tillSales, 'tillSale');
  publish(displayStateFor(input));
  return () => undefined;
}
