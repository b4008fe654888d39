import { Type } from 'typebox';
import { CurrencyCode, Nullable, Timestamp } from './common.ts';
import { AMOUNT_MAJOR_MAX, CART_LINE_QUANTITY_MAX, CART_LINES_MAX, ID_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PRODUCT_NAME_LENGTH_MAX, REFERENCE_LENGTH_MAX, TAX_RATE_PERCENT_MAX, URL_LENGTH_MAX } from '../limits.ts';

/** docs/catalogue.md: the merchant's catalogue (issue 16). Prices in major units, tax rates in percent. */

const ProductName = Type.String({ minLength: 1, maxLength: PRODUCT_NAME_LENGTH_MAX });
const Price = Type.Number({ minimum: 0, maximum: AMOUNT_MAJOR_MAX, description: 'One unit\'s price in major units (tax included when taxInclusive); 0 allowed' });
const TaxRatePercent = Type.Number({ minimum: 0, maximum: TAX_RATE_PERCENT_MAX, description: 'Percent, at most two decimals (7.5 = 7.5 %)' });
const Sku = Type.String({ minLength: 1, maxLength: 64, description: 'Unique per merchant and mode among products not archived' });
const Barcode = Type.String({ pattern: '^[0-9A-Za-z\\-. ]{1,64}$', description: 'What the barcode scanner types (EAN, UPC, Code 128...)' });
const Category = Type.String({ minLength: 1, maxLength: 60 });
const ImageUrl = Type.String({ minLength: 1, maxLength: URL_LENGTH_MAX, description: 'https (http allowed in test mode)' });
const Stock = Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, description: 'Units in stock (a stock take sets it)' });

export const CreateCatalogueProductBody = Type.Object({
  name: ProductName,
  price: Price,
  currency: Type.Optional(CurrencyCode),
  sku: Type.Optional(Nullable(Sku)),
  barcode: Type.Optional(Nullable(Barcode)),
  category: Type.Optional(Nullable(Category)),
  taxRate: Type.Optional(TaxRatePercent),
  taxInclusive: Type.Optional(Type.Boolean({ description: 'Default true' })),
  imageUrl: Type.Optional(Nullable(ImageUrl)),
  trackStock: Type.Optional(Type.Boolean({ description: 'Default false' })),
  stock: Type.Optional(Nullable(Stock)),
  active: Type.Optional(Type.Boolean({ description: 'Default true' })),
}, { additionalProperties: false });

/** Any of the create fields (no defaults: what is not sent is kept). */
export const UpdateCatalogueProductBody = Type.Partial(CreateCatalogueProductBody, { additionalProperties: false, minProperties: 1 });

export const CatalogueProductRecord = Type.Object({
  id: Type.String({ description: 'prod_…' }),
  name: Type.String(),
  price: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  sku: Nullable(Type.String()),
  barcode: Nullable(Type.String()),
  category: Nullable(Type.String()),
  taxRate: Type.Number({ description: 'Percent' }),
  taxInclusive: Type.Boolean(),
  imageUrl: Nullable(Type.String()),
  trackStock: Type.Boolean(),
  stock: Nullable(Type.Integer()),
  oversold: Type.Boolean({ description: 'stock < 0: offline sales sold more than there was' }),
  active: Type.Boolean(),
  archivedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CatalogueProductListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: PRODUCT_NAME_LENGTH_MAX, description: 'Name (substring), SKU (prefix) or barcode (exact), case-insensitive' })),
  category: Type.Optional(Category),
  active: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean({ default: false, description: 'true: the archived products only' })),
});

export const CatalogueProductParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });

// Sales, refunds, manager PINs and reports (docs/catalogue.md).

const RefundLineRecord = Type.Object({
  line: Type.Integer(),
  productId: Nullable(Type.String()),
  name: Type.String(),
  quantity: Type.Integer(),
  amount: Type.Number({ description: 'Major units' }),
});

export const RefundBody = Type.Object({
  saleId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'A POS session id, an offline payment id or a till sale id (a cash sale is refunded from the drawer)' }),
  lines: Type.Optional(Type.Array(Type.Object({ line: Type.Integer({ minimum: 0, maximum: CART_LINES_MAX - 1 }), quantity: Type.Integer({ minimum: 1, maximum: CART_LINE_QUANTITY_MAX }) }), {
    minItems: 1,
    maxItems: CART_LINES_MAX,
    description: 'Lines to refund (0-based index, units); none: everything not yet refunded',
  })),
  managerPin: Type.Optional(Type.String({ pattern: '^[0-9]{4,8}$', description: 'The terminal\'s manager PIN: required with a terminal token, not with the merchant key' })),
  reason: Type.Optional(Type.String({ maxLength: 300 })),
  cashierId: Type.Optional(Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'The till staff member who refunds (recorded)' })),
  shiftId: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'The shift whose drawer a cash refund leaves (recorded)' })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX, description: 'A till sale\'s mobile money part: the payout\'s reference, as POST /api/pay\'s (echoed in its webhook events). Sandbox: test_failure fails the payout, test_reversal reverses it after it completes' })),
});

/** POST /api/pos/sessions/{sessionId}/return: who gave a split sale's tender back, in which shift. */
export const TenderReturnBody = Type.Object({
  cashierId: RefundBody.properties.cashierId,
  shiftId: RefundBody.properties.shiftId,
});

const SaleKind = Type.Union([Type.Literal('pos_session'), Type.Literal('offline_payment'), Type.Literal('till_sale')], {
  description: 'pos_session: an online tap or QR; offline_payment: taken offline; till_sale: completed at the till with its tenders (cash)',
});

export const RefundRecord = Type.Object({
  id: Type.String({ description: 'rf_…' }),
  saleId: Type.String(),
  saleKind: SaleKind,
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  lines: Type.Array(RefundLineRecord),
  reason: Nullable(Type.String()),
  terminalId: Nullable(Type.String({ description: 'The terminal that refunded; null for the merchant key' })),
  walletRef: Nullable(Type.String({ description: 'The correcting ledger transfer; null for a refund of a cash sale (given back from the drawer)' })),
  payerHandle: Nullable(Type.String()),
  tenders: Type.Array(Type.Object({
    kind: Type.String({ description: 'cash (from the drawer), wallet (back to the wallet that paid), gift_card (back onto the card) or mobile_money (a payout to the phone that paid)' }),
    amount: Type.Number({ description: 'Major units' }),
    reference: Type.Optional(Type.String({ description: 'mobile_money: the payout (GET /api/payments/{id}); gift_card, or cash given for a card that had ended: the card\'s redemption' })),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], { description: 'mobile_money: pending while the payout is processing, succeeded once it completed, failed when the provider failed or reversed it (the money is back in the merchant\'s wallet)' })),
    failureReason: Type.Optional(Nullable(Type.String({ description: 'mobile_money, failed: the provider\'s reason' }))),
  })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
    description: 'pending: a mobile money part is still on its way to the phone; succeeded: everything reached the customer (a refund without a payout at once); failed: a part did not (failedAmount): the sale is refundable by it again',
  }),
  failedAmount: Type.Number({ description: 'What did not reach the customer, major units: the failed mobile money part; 0 normally' }),
  failureReason: Type.Optional(Nullable(Type.String({ description: 'failed: the provider\'s reason' }))),
  cashierId: Nullable(Type.String()),
  shiftId: Nullable(Type.String()),
  createdAt: Timestamp,
});

const SaleLineOut = Type.Object({
  line: Type.Integer(),
  productId: Nullable(Type.String()),
  name: Type.String(),
  quantity: Type.Integer(),
  unitPrice: Type.Number(),
  discount: Type.Number(),
  taxRate: Type.Number(),
  taxInclusive: Type.Boolean(),
  net: Type.Number(),
  tax: Type.Number(),
  total: Type.Number(),
});

export const SaleRecord = Type.Object({
  saleId: Type.String(),
  kind: SaleKind,
  terminalId: Nullable(Type.String()),
  status: Type.String(),
  amount: Type.Number({ description: 'The sale\'s total, major units, without the tip' }),
  currency: Type.String(),
  payerHandle: Nullable(Type.String()),
  walletRef: Nullable(Type.String()),
  tenders: Type.Array(Type.Object({
    kind: Type.String({ description: 'cash, wallet, gift_card, mobile_money or offline_tap' }),
    amount: Type.Number({ description: 'What this tender paid, major units' }),
    tendered: Type.Optional(Type.Number({ description: 'Cash: handed over by the customer' })),
    change: Type.Optional(Type.Number({ description: 'Cash: given back from the drawer' })),
    reference: Type.Optional(Type.String({ description: 'Wallet: the POS session that took this part; offline_tap: the offline payment' })),
  })),
  unpaid: Type.Optional(Type.Number({ description: 'Till sale: what its tenders did not pay because the server declined them at sync (an offline tap), major units: the merchant\'s shortfall' })),
  change: Type.Number({ description: 'Change given, major units' }),
  tip: Type.Number({ description: 'A tip on top of the sale, major units' }),
  cashierId: Nullable(Type.String({ description: 'The staff member signed in at the till' })),
  createdAt: Timestamp,
  settledAt: Nullable(Timestamp),
  items: Nullable(Type.Array(SaleLineOut)),
  cartDiscount: Type.Number(),
  totals: Nullable(Type.Object({ subtotal: Type.Number(), discount: Type.Number(), tax: Type.Number(), total: Type.Number() })),
  refunds: Type.Array(RefundRecord),
  refunded: Type.Number({ description: 'What the refunds gave back, major units, without their failed parts (failedAmount)' }),
  refundable: Type.Number({ description: 'What is left to refund, major units: a failed refund\'s part is refundable again' }),
  refundableLines: Type.Array(Type.Object({ line: Type.Integer(), quantity: Type.Integer(), amount: Type.Number() })),
});

export const SaleParams = Type.Object({ saleId: Type.String({ maxLength: ID_LENGTH_MAX }) });

export const ManagerPinBody = Type.Object({ pin: Type.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits' }) });
export const ManagerPinResponse = Type.Object({ terminalId: Type.String(), managerPinSet: Type.Boolean() });

export const ManagerPinCheckBody = Type.Object({
  managerPin: Type.Optional(Type.String({ pattern: '^[0-9]{4,8}$', description: 'The PIN to check; none: only whether one is set' })),
});
export const ManagerPinCheck = Type.Object({
  terminalId: Type.String(),
  managerPinSet: Type.Boolean(),
  verified: Type.Boolean({ description: 'True when the PIN sent is the terminal\'s manager PIN' }),
});

export const CloseDayBody = Type.Object({ managerPin: Type.Optional(Type.String({ pattern: '^[0-9]{4,8}$' })) });

const Tally = Type.Object({ count: Type.Integer(), amount: Type.Number({ description: 'Major units' }) });

export const DayReport = Type.Object({
  id: Nullable(Type.String({ description: 'zr_…; null for an X report' })),
  kind: Type.Union([Type.Literal('X'), Type.Literal('Z')]),
  number: Nullable(Type.Integer({ description: 'The Z report\'s number for this terminal (1, 2, 3…); null for X' })),
  nextNumber: Type.Optional(Type.Integer({ description: 'X: the number the Z report closing this day will get' })),
  terminalId: Type.String(),
  openedAt: Timestamp,
  closedAt: Timestamp,
  currency: Type.String(),
  methods: Type.Object({
    walletTap: Tally,
    qrOnline: Tally,
    offlineVoucher: Tally,
    offlineTap: Tally,
    giftCard: Tally,
    cash: Tally,
    // The mobile money part of till sales (collections at the till); absent from Z reports closed before it was counted.
    mobileMoney: Type.Optional(Tally),
    // The gift card part of till sales (cards redeemed at the till to pay); giftCard counts cards sold.
    giftCardTender: Type.Optional(Tally),
  }),
  online: Tally,
  offline: Tally,
  declinedOffline: Tally,
  cash: Type.Object({
    sales: Tally,
    collected: Type.Number({ description: 'Cash the drawer kept for sales and tips (handed over minus change)' }),
    tendered: Type.Number({ description: 'Cash handed over by customers' }),
    change: Type.Number({ description: 'Change given back' }),
    refunds: Tally,
    net: Type.Number({ description: 'collected minus cash refunds: what the day added to the drawer' }),
  }, { description: 'Cash at the till (till sales recorded by the kiosk, online or offline)' }),
  tips: Tally,
  declinedTill: Tally,
  shifts: Type.Array(Type.Object({
    id: Type.String(),
    cashierId: Type.String(),
    cashierName: Nullable(Type.String()),
    openedAt: Timestamp,
    closedAt: Timestamp,
    float: Type.Number(),
    cashSales: Type.Number(),
    cashRefunds: Type.Number(),
    paidIn: Type.Number(),
    paidOut: Type.Number(),
    noSales: Type.Integer(),
    expected: Type.Number(),
    counted: Type.Number(),
    variance: Type.Number({ description: 'counted - expected: negative is short' }),
  }), { description: 'The shifts that closed in this day, in the order they closed' }),
  cashiers: Type.Array(Type.Object({
    cashierId: Type.String(),
    name: Nullable(Type.String()),
    sales: Tally,
    tips: Tally,
    shifts: Type.Integer(),
    variance: Type.Number({ description: 'The sum of their shifts\' variances' }),
  }), { description: 'Per cashier: their till sales, tips, shifts closed and cash variance' }),
  giftCardsSold: Tally,
  refunds: Type.Object(Tally.properties, { description: 'Refunds made in this day, counting what reached the customer: a mobile money part whose payout failed (before this report) is left out' }),
  refundFailures: Type.Object(Tally.properties, {
    description: 'Refunds an earlier Z report counted whose mobile money payout failed or was reversed in this day: that report stays as it closed, net adds these back (the money is back in the merchant\'s wallet)',
  }),
  taxes: Type.Array(Type.Object({ rate: Type.Number({ description: 'Percent' }), taxable: Type.Number(), tax: Type.Number() })),
  gross: Type.Number(),
  net: Type.Number({ description: 'gross - refunds + refundFailures' }),
  oversold: Type.Array(Type.Object({ productId: Type.String(), name: Type.String(), stock: Type.Integer() })),
});

export const TerminalReportParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }), reportId: Type.String({ maxLength: ID_LENGTH_MAX }) });
export const ReportParams = Type.Object({ reportId: Type.String({ maxLength: ID_LENGTH_MAX }) });
