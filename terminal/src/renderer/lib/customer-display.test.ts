// The customer display's state: the kiosk's screens mapped to what the customer sees (the cart,
// its totals, the amount to pay, the QR code of a waiting wallet sale, the outcome with a cash
// sale's change), plain data that survives JSON; and its transport: published over a
// BroadcastChannel, kept for a display opened later, followed as a stored sale changes.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { type Cart, cartTotals } from '@tapline/shared/cart';
import type { TillSaleDoc } from '@tapline/shared/sync-protocol';
import { cashSaleDoc } from './cash-sales.ts';
import {
  DISPLAY_CHANNEL,
  DISPLAY_STORAGE_KEY,
  type DisplayInput,
  type DisplayState,
  type DisplayTransport,
  displayStateFor,
  followDisplay,
  parseDisplayState,
  publishDisplay,
  stopPublishing,
  watchDisplay,
} from './customer-display.ts';
import type { PosSaleDoc } from './pos-sales.ts';

const CART: Cart = {
  lines: [
    { productId: 'prod_jollof', name: 'Jollof rice', quantity: 2, unitPrice: 1_500, discount: 100, taxRate: 750, taxInclusive: true },
    { productId: 'prod_malt', name: 'Malt', quantity: 1, unitPrice: 500, discount: 0, taxRate: 750, taxInclusive: false },
  ],
  discount: 50,
};
const TOTAL = cartTotals(CART).total;
const EMPTY: Cart = { lines: [], discount: 0 };

function input(overrides: Partial<DisplayInput> = {}): DisplayInput {
  return { screen: { name: 'sale' }, merchantName: 'Mama Put', language: 'fr', currency: 'NGN', cart: CART, unreachable: false, ...overrides };
}

function posSale(fields: Partial<PosSaleDoc> = {}): PosSaleDoc {
  return { id: 'sale_1', terminalId: 'trm_front', amountMinor: TOTAL, currency: 'NGN', description: '', capturedAt: '2026-11-28T12:00:00Z', status: 'pending', items: CART.lines, discountMinor: CART.discount, ...fields };
}

function tillSale(tenderedMinor: number): TillSaleDoc {
  const attempt = cashSaleDoc({ amountMinor: TOTAL, currency: 'NGN', description: '', items: CART.lines, discountMinor: CART.discount }, tenderedMinor, 'trm_front', 'NGN', new Date('2026-11-28T12:00:00Z'), 'till_1');
  assert.ok(attempt.ok);
  return attempt.doc;
}

describe('the customer display state', () => {
  it('welcomes with the merchant\'s name while the cart is empty and on screens that are not the customer\'s', () => {
    for (const screen of [{ name: 'sale' }, { name: 'signin' }, { name: 'history' }, { name: 'refund', saleId: 'x' }, { name: 'day-report' }, { name: 'shift' }, { name: 'gift-card' }]) {
      const state = displayStateFor(input({ screen, cart: screen.name === 'sale' ? EMPTY : CART }));
      assert.deepEqual(state, { version: 1, merchantName: 'Mama Put', language: 'fr', currency: 'NGN', lines: [], totals: null, amountDueMinor: null, paidTenders: [], remainingMinor: null, phase: { kind: 'idle' } }, screen.name);
    }
  });

  it('follows the cart: each line with its quantity, discount and total, the totals of shared/cart with taxes by rate, the total due', () => {
    const state = displayStateFor(input());
    assert.deepEqual(state.lines, [
      { name: 'Jollof rice', quantity: 2, unitPriceMinor: 1_500, discountMinor: 100, totalMinor: 2_900 },
      { name: 'Malt', quantity: 1, unitPriceMinor: 500, discountMinor: 0, totalMinor: 500 },
    ]);
    const totals = cartTotals(CART);
    assert.deepEqual(state.totals, {
      subtotalMinor: 3_500,
      discountMinor: 150,
      taxes: [
        { rateBps: 750, included: true, taxMinor: totals.lines[0]!.tax },
        { rateBps: 750, included: false, taxMinor: totals.lines[1]!.tax },
      ],
      totalMinor: TOTAL,
    });
    assert.equal(state.amountDueMinor, 3_387);
    assert.deepEqual(state.phase, { kind: 'cart' });
    // One more Jollof: the display's line and total follow.
    const more = displayStateFor(input({ cart: { ...CART, lines: [{ ...CART.lines[0]!, quantity: 3 }, CART.lines[1]!] } }));
    assert.deepEqual([more.lines[0]!.quantity, more.lines[0]!.totalMinor], [3, 4_400]);
    assert.ok(more.totals!.totalMinor > TOTAL);
  });

  it('shows the QR code of a wallet sale while it waits, none while the code is coming or the server cannot be reached', () => {
    const screen = { name: 'pos-sale', saleId: 'sale_1' };
    const waiting = displayStateFor(input({ screen, cart: EMPTY, posSale: posSale({ qrPayload: 'https://pay.example/s/abc' }) }));
    assert.deepEqual(waiting.phase, { kind: 'pay', method: 'wallet', qrPayload: 'https://pay.example/s/abc', opening: false });
    assert.equal(waiting.amountDueMinor, TOTAL);
    assert.deepEqual(waiting.lines.map((line) => [line.name, line.quantity]), [['Jollof rice', 2], ['Malt', 1]], 'the sale\'s own lines, not the till\'s cart');
    assert.deepEqual(displayStateFor(input({ screen, posSale: posSale({ status: 'opening' }) })).phase, { kind: 'pay', method: 'wallet', qrPayload: null, opening: true });
    assert.deepEqual(displayStateFor(input({ screen, unreachable: true, posSale: posSale({ qrPayload: 'https://pay.example/s/abc' }) })).phase, { kind: 'pay', method: 'wallet', qrPayload: null, opening: false });
    // Another sale's document (a stale read) is not shown as this one.
    assert.deepEqual(displayStateFor(input({ screen, posSale: posSale({ id: 'sale_0' }) })).phase, { kind: 'idle' });
    // A keypad amount: no lines, the amount due all the same.
    const keypad = displayStateFor(input({ screen, posSale: posSale({ items: undefined, discountMinor: undefined, amountMinor: 1_250, qrPayload: 'q' }) }));
    assert.deepEqual([keypad.lines, keypad.totals, keypad.amountDueMinor], [[], null, 1_250]);
  });

  it('says what became of a wallet sale: paid, declined, cancelled (here or on the server), expired (or timed out here)', () => {
    const screen = { name: 'pos-sale', saleId: 'sale_1' };
    const result = (fields: Partial<PosSaleDoc>) => {
      const phase = displayStateFor(input({ screen, posSale: posSale(fields) })).phase;
      return phase.kind === 'outcome' ? phase.result : phase.kind;
    };
    assert.equal(result({ status: 'completed' }), 'paid');
    assert.equal(result({ status: 'failed' }), 'declined');
    assert.equal(result({ status: 'cancelled' }), 'cancelled');
    assert.equal(result({ status: 'expired' }), 'expired');
    assert.equal(result({ status: 'pending', localEnd: 'cancelled' }), 'cancelled');
    assert.equal(result({ status: 'pending', localEnd: 'timed_out' }), 'expired');
    assert.equal(result({ status: 'pending' }), 'pay');
  });

  it('asks for cash, then shows what was handed over and the change', () => {
    const sale = { amountMinor: TOTAL, currency: 'NGN', description: '', items: CART.lines, discountMinor: CART.discount };
    const asking = displayStateFor(input({ screen: { name: 'cash', sale }, cart: CART }));
    assert.deepEqual([asking.phase, asking.amountDueMinor, asking.lines.length], [{ kind: 'pay', method: 'cash', qrPayload: null, opening: false }, TOTAL, 2]);
    const doc = tillSale(5_000);
    const done = displayStateFor(input({ screen: { name: 'cash-outcome', saleId: doc.id }, cart: EMPTY, tillSale: doc }));
    assert.deepEqual(done.phase, { kind: 'outcome', result: 'paid', tenderedMinor: 5_000, changeMinor: 5_000 - TOTAL });
    assert.equal(done.lines.length, 2);
    const exact = displayStateFor(input({ screen: { name: 'cash-outcome', saleId: 'till_1' }, tillSale: tillSale(TOTAL) }));
    assert.deepEqual(exact.phase, { kind: 'outcome', result: 'paid', tenderedMinor: TOTAL, changeMinor: 0 });
  });

  it('takes an offline payment and shows its verdict as it replicates back', () => {
    const sale = { amountMinor: 2_000, currency: 'NGN', description: 'Table 4' };
    assert.deepEqual(displayStateFor(input({ screen: { name: 'offline', sale } })).phase, { kind: 'pay', method: 'offline', qrPayload: null, opening: false });
    const doc = { status: 'queued' as const, amountMinor: 2_000, currency: 'NGN' };
    assert.deepEqual(displayStateFor(input({ screen: { name: 'offline-outcome', doc } })).phase, { kind: 'outcome', result: 'paid', tenderedMinor: null, changeMinor: null });
    assert.deepEqual(displayStateFor(input({ screen: { name: 'offline-outcome', doc: { ...doc, status: 'declined' } } })).phase, { kind: 'outcome', result: 'declined', tenderedMinor: null, changeMinor: null });
  });

  it('carries tenders already paid and what is left (split tenders)', () => {
    const state = displayStateFor(input({ tenders: { remainingMinor: 1_387, paidTenders: [{ kind: 'cash', amountMinor: 2_000 }] } }));
    assert.deepEqual([state.paidTenders, state.remainingMinor], [[{ kind: 'cash', amountMinor: 2_000 }], 1_387]);
  });

  it('shows the split screen\'s sale with its tip as what is due, what is paid and what is left', () => {
    const sale = { amountMinor: TOTAL, currency: 'NGN', description: '', items: CART.lines, discountMinor: CART.discount };
    const state = displayStateFor(input({ screen: { name: 'split', sale, tipMinor: 150 }, tenders: { remainingMinor: TOTAL + 150 - 500, paidTenders: [{ kind: 'wallet', amountMinor: 500 }] } }));
    assert.deepEqual([state.amountDueMinor, state.remainingMinor, state.paidTenders, state.phase.kind, state.lines.length], [TOTAL + 150, TOTAL - 350, [{ kind: 'wallet', amountMinor: 500 }], 'pay', CART.lines.length]);
  });

  it('is plain data: through JSON and back the same, and a state of another version or shape is refused', () => {
    const state = displayStateFor(input({ screen: { name: 'pos-sale', saleId: 'sale_1' }, posSale: posSale({ qrPayload: 'q' }) }));
    assert.deepEqual(parseDisplayState(JSON.stringify(state)), state);
    assert.deepEqual(structuredClone(state), state);
    assert.equal(parseDisplayState(JSON.stringify({ ...state, version: 2 })), null);
    assert.equal(parseDisplayState(JSON.stringify({ ...state, language: 'de' })), null);
    assert.equal(parseDisplayState(JSON.stringify({ ...state, phase: { kind: 'dance' } })), null);
    assert.equal(parseDisplayState('{not json'), null);
    assert.equal(parseDisplayState(null), null);
  });
});

/** localStorage in memory. */
function memoryStorage(): Map<string, string> & Pick<Storage, 'getItem' | 'setItem'> {
  const map = new Map<string, string>() as Map<string, string> & Pick<Storage, 'getItem' | 'setItem'>;
  map.getItem = (key) => map.get(key) ?? null;
  map.setItem = (key, value) => void map.set(key, value);
  return map;
}

/** Node's own BroadcastChannel (as between two pages of one origin) and one storage. */
function transport(storage = memoryStorage()): DisplayTransport & { storage: ReturnType<typeof memoryStorage> } {
  return { channel: () => new BroadcastChannel(DISPLAY_CHANNEL) as unknown as ReturnType<DisplayTransport['channel']>, storage };
}

function nextState(states: DisplayState[], count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const check = () => {
      if (states.length >= count) resolve();
      else if (Date.now() > deadline) reject(new Error(`${states.length} states, waited for ${count}`));
      else setTimeout(check, 5);
    };
    check();
  });
}

describe('the customer display channel', () => {
  afterEach(() => stopPublishing());

  it('sends each new state to the display once, and keeps the last one for a display opened later', async () => {
    const shared = transport();
    const seen: DisplayState[] = [];
    const stop = watchDisplay((state) => seen.push(state), shared);
    const cart = displayStateFor(input());
    publishDisplay(cart, shared);
    publishDisplay(JSON.parse(JSON.stringify(cart)) as DisplayState, shared);
    const idle = displayStateFor(input({ cart: EMPTY }));
    publishDisplay(idle, shared);
    await nextState(seen, 2);
    assert.deepEqual(seen, [cart, idle], 'the same state twice is sent once');
    assert.deepEqual(JSON.parse(shared.storage.get(DISPLAY_STORAGE_KEY)!), idle);
    stop();

    // A display opened (or reloaded) now shows the kept state at once, then follows.
    const later: DisplayState[] = [];
    const stopLater = watchDisplay((state) => later.push(state), shared);
    assert.deepEqual(later, [idle]);
    publishDisplay(cart, shared);
    await nextState(later, 2);
    assert.deepEqual(later[1], cart);
    stopLater();
  });

  it('ignores what it cannot read: a kept state of another version, a foreign message', async () => {
    const shared = transport();
    shared.storage.setItem(DISPLAY_STORAGE_KEY, JSON.stringify({ version: 99 }));
    const seen: DisplayState[] = [];
    const stop = watchDisplay((state) => seen.push(state), shared);
    const other = new BroadcastChannel(DISPLAY_CHANNEL);
    other.postMessage('{"hello":1}');
    other.close();
    const state = displayStateFor(input());
    publishDisplay(state, shared);
    await nextState(seen, 1);
    assert.deepEqual(seen, [state]);
    stop();
  });

  it('follows the stored sale it shows: the wallet sale as the server answers, until stopped', () => {
    let listener: ((doc: { toMutableJSON(): PosSaleDoc } | null) => void) | null = null;
    const collection = {
      findOne(id: string) {
        assert.equal(id, 'sale_1');
        return { $: { subscribe: (next: typeof listener) => ((listener = next), { unsubscribe: () => void (listener = null) }) } };
      },
    };
    const published: DisplayState[] = [];
    const stop = followDisplay(input({ screen: { name: 'pos-sale', saleId: 'sale_1' } }), { posSales: collection, tillSales: null }, (state) => published.push(state));
    const doc = (fields: Partial<PosSaleDoc>) => ({ toMutableJSON: () => posSale(fields) });
    listener!(doc({ status: 'opening' }));
    listener!(doc({ qrPayload: 'https://pay.example/s/abc' }));
    listener!(doc({ status: 'completed' }));
    assert.deepEqual(
      published.map((state) => (state.phase.kind === 'pay' ? `pay:${state.phase.qrPayload ?? 'none'}` : state.phase.kind === 'outcome' ? state.phase.result : state.phase.kind)),
      ['pay:none', 'pay:https://pay.example/s/abc', 'paid'],
    );
    stop();
    assert.equal(listener, null, 'unsubscribed');
    // A screen without a stored sale publishes once, at once.
    followDisplay(input(), { posSales: collection, tillSales: null }, (state) => published.push(state))();
    assert.deepEqual(published.at(-1)!.phase, { kind: 'cart' });
  });
});
