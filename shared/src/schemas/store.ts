import { type Static, type TSchema, Type } from 'typebox';
import { CountryCode, CurrencyCode, HandleInput, MajorAmount, Mode, Pin, Timestamp } from './common.ts';
import { EMAIL_LENGTH_MAX, ID_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, STORE_LIMITS, URL_LENGTH_MAX } from '../limits.ts';

/**
 * The store (spec: "Store" and its endpoint table; CONTRACT.md, Checkout). Amounts cross the API
 * in major units of the named currency; the ledger keeps minor units.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PRODUCT_STATUSES = ['draft', 'active', 'archived'] as const;
export const ProductStatus = Type.Union([Type.Literal('draft'), Type.Literal('active'), Type.Literal('archived')], { description: 'draft (hidden), active (listed), archived (hidden; DELETE)' });
export const GEO_MODES = ['all', 'include', 'exclude'] as const;
export const GeoMode = Type.Union([Type.Literal('all'), Type.Literal('include'), Type.Literal('exclude')], {
  description: 'all: ships to every country; include: only to availableCountries; exclude: to every country but those',
});
export const ORDER_STATUSES = ['pending', 'paid', 'fulfilled', 'shipped', 'delivered', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const OrderStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('paid'), Type.Literal('fulfilled'), Type.Literal('shipped'), Type.Literal('delivered'), Type.Literal('cancelled'), Type.Literal('refunded')],
  { description: ORDER_STATUSES.join(', ') });
export const DISCOUNT_TYPES = ['percent', 'fixed'] as const;
export const DiscountType = Type.Union([Type.Literal('percent'), Type.Literal('fixed')], { description: 'percent of the price, or a fixed amount off' });
export const PRODUCT_SORTS = ['sort_order', 'price_asc', 'price_desc', 'newest', 'name'] as const;
export const ProductSort = Type.Union([Type.Literal('sort_order'), Type.Literal('price_asc'), Type.Literal('price_desc'), Type.Literal('newest'), Type.Literal('name')], {
  description: 'sort_order (default: the admin\'s order), price_asc and price_desc (basePrice), newest, name',
});

const Slug = Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 80, description: 'Lower-case a-z, 0-9 and single hyphens; unique per mode' });
const Category = Type.String({ pattern: '^[a-z0-9-]{1,40}$', description: 'Lower-case a-z, 0-9 and -' });
const ImageUrl = Type.String({ pattern: '^(/[A-Za-z0-9._~/-]+|https://\\S+)$', maxLength: URL_LENGTH_MAX, description: 'A relative URL (/store/images/ring.png) or an https URL' });
const DiscountValue = Type.Number({
  exclusiveMinimum: 0,
  description: 'percent: 0 < value < 100 (at most 2 decimals; 100 allowed for referral codes); fixed: an amount in major units of the currency',
});
const StoreMode = { ...Mode, description: 'test or live; default test (the test catalogue; test and live never mix)' };

export const ProductVariant = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 60 }),
  priceDelta: Type.Number({ description: 'Added to the unit price, major units of the product currency, >= 0 (0 when absent at creation)' }),
});
export const ProductVariantInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 60 }), priceDelta: Type.Optional(Type.Number({ minimum: 0, description: 'Major units, >= 0; default 0' })) },
  { additionalProperties: false },
);

export const FlashSaleSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  discountType: DiscountType,
  discountValue: Type.Number({ description: 'percent, or major units of the product currency' }),
  salePrice: Type.Number({ description: 'basePrice less the discount (rounded down to the minor unit), major units' }),
  startAt: Timestamp,
  endsAt: Timestamp,
  timeRemainingSeconds: Type.Integer(),
  maxUnits: Nullable(Type.Integer()),
  unitsSold: Type.Integer(),
  unitsLeft: Nullable(Type.Integer({ description: 'null: no unit limit' })),
});


const productProperties = {
  id: Type.String({ description: 'prod_ + opaque' }),
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  category: Type.String(),
  basePrice: Type.Number({ description: 'Major units of baseCurrency' }),
  baseCurrency: Type.String(),
  price: Type.Number({ description: 'The effective unit price now: the flash-sale price while a sale runs, else basePrice' }),
  stock: Type.Integer(),
  status: ProductStatus,
  images: Type.Array(Type.String()),
  flashSale: Nullable(FlashSaleSummary),
  priceInWalletCurrency: Type.Optional(
    Type.Number({ description: 'Only with walletCurrency: the effective unit price (the flash-sale price while one runs) converted at the FX service\'s mid rate, rounded up to the minor unit of walletCurrency: what checkout charges such a wallet per unit' }),
  ),
  walletCurrency: Type.Optional(Type.String({ description: 'Only with walletCurrency: the currency of priceInWalletCurrency' })),
  walletFxRate: Type.Optional(Type.Number({ description: 'Only with walletCurrency: the mid rate used, units of walletCurrency per unit of baseCurrency' })),
  mode: Mode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const StoreProduct = Type.Object(productProperties);

export const ReviewRecord = Type.Object({
  id: Type.String(),
  productId: Type.String(),
  orderId: Type.String(),
  buyerHandle: Type.String(),
  rating: Type.Integer(),
  title: Nullable(Type.String()),
  body: Nullable(Type.String()),
  createdAt: Timestamp,
});
/** The public view of a review: no order id. */
export const PublicReview = Type.Object({
  id: Type.String(),
  buyerHandle: Type.String(),
  rating: Type.Integer(),
  title: Nullable(Type.String()),
  body: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const ReviewsSummary = Type.Object({
  count: Type.Integer(),
  avgRating: Nullable(Type.Number({ description: 'Mean rating rounded to 2 decimals; null without reviews' })),
  recent: Type.Array(PublicReview, { description: 'The 5 newest reviews' }),
});

export const StoreProductDetail = Type.Object({
  ...productProperties,
  variants: Type.Array(ProductVariant),
  availableCountries: Type.Array(Type.String()),
  geoMode: GeoMode,
  reviews: ReviewsSummary,
});

/** Admin view: the detail plus the admin's sort order. */
export const AdminProduct = Type.Object({
  ...productProperties,
  variants: Type.Array(ProductVariant),
  availableCountries: Type.Array(Type.String()),
  geoMode: GeoMode,
  sortOrder: Type.Integer(),
});

export const ProductListQuery = Type.Object({
  category: Type.Optional(Category),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  search: Type.Optional(Type.String({ maxLength: STORE_LIMITS.searchLengthMax, description: 'Case-insensitive substring of name, description or slug' })),
  sort: Type.Optional(ProductSort),
  walletCurrency: Type.Optional({ ...CurrencyCode, description: 'Adds priceInWalletCurrency, converted by the FX rate service' }),
  mode: Type.Optional(StoreMode),
});
export type ProductListQuery = Static<typeof ProductListQuery>;

export const ProductDetailQuery = Type.Object({
  walletCurrency: Type.Optional(CurrencyCode),
  mode: Type.Optional(StoreMode),
});

export const AdminProductListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(ProductStatus),
  category: Type.Optional(Category),
  search: Type.Optional(Type.String({ maxLength: STORE_LIMITS.searchLengthMax })),
  mode: Type.Optional(StoreMode),
});

const productFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.String({ maxLength: 4000 }),
  category: Category,
  basePrice: MajorAmount,
  baseCurrency: CurrencyCode,
  stock: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  status: ProductStatus,
  images: Type.Array(ImageUrl, { maxItems: STORE_LIMITS.imagesMax }),
  variants: Type.Array(ProductVariantInput, { maxItems: STORE_LIMITS.variantsMax }),
  availableCountries: Type.Array(CountryCode, { maxItems: STORE_LIMITS.countriesMax }),
  geoMode: GeoMode,
  sortOrder: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 }),
};

export const CreateProductBody = Type.Object(
  {
    slug: Slug,
    name: productFields.name,
    description: Type.Optional(productFields.description),
    category: productFields.category,
    basePrice: productFields.basePrice,
    baseCurrency: productFields.baseCurrency,
    stock: productFields.stock,
    status: Type.Optional({ ...ProductStatus, description: 'draft or active (default active); archived is what DELETE does' }),
    images: Type.Optional(productFields.images),
    variants: Type.Optional(productFields.variants),
    availableCountries: Type.Optional(productFields.availableCountries),
    geoMode: Type.Optional(productFields.geoMode),
    sortOrder: Type.Optional(productFields.sortOrder),
    mode: Type.Optional(StoreMode),
  },
  { additionalProperties: false },
);
export type CreateProductBody = Static<typeof CreateProductBody>;

export const UpdateProductBody = Type.Object(
  {
    slug: Type.Optional(Slug),
    name: Type.Optional(productFields.name),
    description: Type.Optional(productFields.description),
    category: Type.Optional(productFields.category),
    basePrice: Type.Optional(productFields.basePrice),
    baseCurrency: Type.Optional(productFields.baseCurrency),
    stock: Type.Optional(productFields.stock),
    status: Type.Optional(productFields.status),
    images: Type.Optional(productFields.images),
    variants: Type.Optional(productFields.variants),
    availableCountries: Type.Optional(productFields.availableCountries),
    geoMode: Type.Optional(productFields.geoMode),
    sortOrder: Type.Optional(productFields.sortOrder),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateProductBody = Static<typeof UpdateProductBody>;

export const SeedBody = Type.Object({ mode: Type.Optional(StoreMode) }, { additionalProperties: false });
export const SeedResponse = Type.Object({
  created: Type.Integer(),
  existing: Type.Integer(),
  products: Type.Array(AdminProduct),
});

// Checkout ------------------------------------------------------------------------------------

const ShippingText = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });

export const CheckoutBody = Type.Object(
  {
    productSlug: Slug,
    quantity: Type.Integer({ minimum: 1, maximum: STORE_LIMITS.quantityMax, description: '1 to 100' }),
    buyerHandle: HandleInput,
    walletPin: Type.Optional({ ...Pin, description: 'The buyer\'s wallet PIN. Required unless a gift card pays the whole total and is not locked to a handle.' }),
    mode: Type.Optional({ ...Mode, description: 'The buyer\'s wallet: test or live. Absent: the test wallet when there is one, else the live one (as POST /api/wallet/sessions)' }),
    variantName: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    giftCardCode: Type.Optional(Type.String({ pattern: '^[gG][cC]_[0-9a-fA-F]{64}$', description: 'gc_ + 64 hex; the card pays what it can, the wallet the rest' })),
    giftCardPin: Type.Optional(Type.String({ maxLength: 64, description: 'The gift card\'s own PIN, required when the card has one (5 wrong PINs lock the card 15 minutes)' })),
    referralCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    shippingName: ShippingText(120),
    shippingPhone: Type.String({ pattern: '^\\+?[0-9 ()-]{6,24}$', description: 'Digits, spaces, ( ) - and an optional leading +' }),
    shippingAddress: ShippingText(300),
    shippingCity: ShippingText(120),
    shippingCountry: CountryCode,
    notes: Type.Optional(Type.String({ maxLength: STORE_LIMITS.notesMax })),
  },
  { additionalProperties: false },
);
export type CheckoutBody = Static<typeof CheckoutBody>;

const OrderTimelineEntry = Type.Object({ status: Type.String(), at: Timestamp, note: Type.Optional(Type.String()) });

export const PaymentBreakdown = Type.Object({
  total: Type.Number({ description: 'subtotal - discount, major units of currency' }),
  subtotal: Type.Number(),
  unitPrice: Type.Number(),
  currency: Type.String({ description: 'The order currency: the product\'s baseCurrency' }),
  walletDebit: Type.Number({ description: 'The wallet\'s part, in the order currency' }),
  giftCardDebit: Type.Number({ description: 'The gift card\'s part, in the order currency' }),
  discount: Type.Number(),
  referralCode: Nullable(Type.String()),
  flashSaleId: Nullable(Type.String()),
  walletCharged: Nullable(Type.Object({
    amount: Type.Number({ description: 'What left the wallet, in walletCurrency' }),
    currency: Type.String(),
    fxRate: Nullable(Type.Number({ description: 'Mid rate order currency -> wallet currency; null when the same currency' })),
  })),
  giftCardPrefix: Nullable(Type.String({ description: 'The first 10 characters of the card code (never the code)' })),
});

export const Shipping = Type.Object({
  name: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  city: Type.String(),
  country: Type.String(),
});

export const StoreOrder = Type.Object({
  id: Type.String({ description: 'ord_ + 32 hex (128 bits): unguessable' }),
  status: OrderStatus,
  mode: Mode,
  product: Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String(), variantName: Nullable(Type.String()) }),
  quantity: Type.Integer(),
  buyerHandle: Type.String(),
  shipping: Shipping,
  notes: Nullable(Type.String()),
  payment: PaymentBreakdown,
  timeline: Type.Array(OrderTimelineEntry),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CheckoutResponse = Type.Object({
  order: StoreOrder,
  walletDebit: Type.Number({ description: 'The wallet\'s part, in the order currency' }),
  giftCardDebit: Type.Number({ description: 'The gift card\'s part, in the order currency' }),
  remaining: Type.Number({ description: 'The wallet\'s balance after the debit, in remainingCurrency' }),
  remainingCurrency: Type.String({ description: 'The currency the wallet paid in (its home currency when it paid nothing)' }),
  giftCardRemaining: Nullable(Type.Number({ description: 'The card\'s balance after the draw, card currency' })),
});

export const MyOrdersBody = Type.Object(
  {
    buyerHandle: HandleInput,
    walletPin: Pin,
    mode: Type.Optional(Mode),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);

export const OrderParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });

export const AdminOrderListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(OrderStatus),
  mode: Type.Optional(StoreMode),
  buyerHandle: Type.Optional(HandleInput),
});

export const AdminOrderPatchBody = Type.Object(
  {
    status: Type.Union([Type.Literal('fulfilled'), Type.Literal('shipped'), Type.Literal('delivered'), Type.Literal('cancelled'), Type.Literal('refunded')], {
      description: 'The target state: paid -> fulfilled -> shipped -> delivered; cancelled from pending, paid or fulfilled; refunded from paid, fulfilled, shipped or delivered',
    }),
    note: Type.Optional(Type.String({ maxLength: 300 })),
    restock: Type.Optional(Type.Boolean({ description: 'cancelled/refunded: put the units back in stock (default true)' })),
  },
  { additionalProperties: false },
);

// Flash sales -------------------------------------------------------------------------------

export const FlashSaleRecord = Type.Object({
  id: Type.String(),
  productId: Type.String(),
  productSlug: Type.String(),
  name: Type.String(),
  discountType: DiscountType,
  discountValue: Type.Number(),
  currency: Type.String({ description: 'The product currency (of a fixed discount and salePrice)' }),
  salePrice: Type.Number(),
  startAt: Timestamp,
  endAt: Timestamp,
  maxUnits: Nullable(Type.Integer()),
  unitsSold: Type.Integer(),
  unitsLeft: Nullable(Type.Integer()),
  status: Type.String({ description: 'The admin switch: active, paused or ended' }),
  state: Type.String({ description: 'What buyers see now: scheduled, running, sold_out, paused or ended' }),
  timeRemainingSeconds: Type.Integer({ description: 'Until endAt while running, else 0' }),
  mode: Mode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateFlashSaleBody = Type.Object(
  {
    productId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }),
    name: Type.String({ minLength: 1, maxLength: 120 }),
    discountType: DiscountType,
    discountValue: DiscountValue,
    startAt: Type.String({ format: 'date-time' }),
    endAt: Type.String({ format: 'date-time' }),
    maxUnits: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type CreateFlashSaleBody = Static<typeof CreateFlashSaleBody>;

export const UpdateFlashSaleBody = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('ended')], { description: 'ended ends the sale now (for good)' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    endAt: Type.Optional(Type.String({ format: 'date-time', description: 'Move the end (a time in the past or now ends it early)' })),
    maxUnits: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateFlashSaleBody = Static<typeof UpdateFlashSaleBody>;

export const FlashSaleListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  mode: Type.Optional(StoreMode),
});

// Reviews, stock alerts, referrals --------------------------------------------------------------

export const ReviewBody = Type.Object(
  {
    productSlug: Slug,
    buyerHandle: HandleInput,
    walletPin: Pin,
    orderId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }),
    rating: Type.Integer({ minimum: 1, maximum: 5, description: 'Integer 1 to 5' }),
    title: Type.Optional(Type.String({ maxLength: STORE_LIMITS.reviewTitleMax })),
    body: Type.Optional(Type.String({ maxLength: STORE_LIMITS.reviewBodyMax })),
    mode: Type.Optional(Mode),
  },
  { additionalProperties: false },
);

export const StockAlertBody = Type.Object(
  {
    productSlug: Slug,
    buyerHandle: HandleInput,
    email: Type.String({ minLength: 3, maxLength: EMAIL_LENGTH_MAX, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'Where the back-in-stock e-mail goes' }),
    mode: Type.Optional(StoreMode),
  },
  { additionalProperties: false },
);

export const StockAlertRecord = Type.Object({
  id: Type.String(),
  productId: Type.String(),
  productSlug: Type.String(),
  buyerHandle: Type.String(),
  email: Type.String(),
  status: Type.String({ description: 'waiting, or notified once stock came back' }),
  createdAt: Timestamp,
  notifiedAt: Nullable(Timestamp),
});

export const WalletNotification = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'e.g. store.back_in_stock' }),
  title: Type.String(),
  body: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
  readAt: Nullable(Timestamp),
});

export const ReferralRecord = Type.Object({
  id: Type.String(),
  code: Type.String(),
  description: Nullable(Type.String()),
  discountType: DiscountType,
  discountValue: Type.Number(),
  currency: Nullable(Type.String({ description: 'fixed codes: the currency of the amount (orders in other currencies are refused)' })),
  maxUses: Nullable(Type.Integer()),
  uses: Type.Integer(),
  expiresAt: Nullable(Timestamp),
  active: Type.Boolean(),
  mode: Mode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateReferralBody = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Za-z0-9_-]{3,32}$', description: '3 to 32 of A-Z, 0-9, _ and -; case-insensitive (stored upper case); unique per mode' }),
    description: Type.Optional(Type.String({ maxLength: 200 })),
    discountType: DiscountType,
    discountValue: DiscountValue,
    currency: Type.Optional({ ...CurrencyCode, description: 'Required for fixed codes' }),
    maxUses: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    active: Type.Optional(Type.Boolean()),
    mode: Type.Optional(StoreMode),
  },
  { additionalProperties: false },
);
export type CreateReferralBody = Static<typeof CreateReferralBody>;

export const UpdateReferralBody = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    maxUses: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000_000 }))),
    expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ValidateReferralBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64 }), mode: Type.Optional(StoreMode) },
  { additionalProperties: false },
);

export const ValidateReferralResponse = Type.Object({
  valid: Type.Boolean(),
  code: Type.String(),
  discountType: Nullable(DiscountType),
  discountValue: Nullable(Type.Number()),
  currency: Nullable(Type.String()),
  reason: Nullable(Type.String({ description: 'Why not valid: not_found, inactive, expired, exhausted' })),
  expiresAt: Nullable(Timestamp),
  usesLeft: Nullable(Type.Integer({ description: 'null: no limit' })),
});

export const StoreStatsQuery = Type.Object({
  mode: Type.Optional(StoreMode),
  currency: Type.Optional({ ...CurrencyCode, description: 'revenueCurrency (default USD): every order currency is converted into it' }),
});

export const StoreStats = Type.Object({
  totalProducts: Type.Integer({ description: 'Products of the mode that are not archived' }),
  totalOrders: Type.Integer({ description: 'Every order of the mode' }),
  totalRevenue: Type.Number({ description: 'Net revenue of paid, fulfilled, shipped and delivered orders, converted into revenueCurrency at the FX mid rate (half up per currency)' }),
  revenueCurrency: Type.String(),
  revenueByCurrency: Type.Array(Type.Object({ currency: Type.String(), amount: Type.Number(), orders: Type.Integer() })),
  totalReviews: Type.Integer(),
  pendingOrders: Type.Integer({ description: 'Orders waiting for fulfilment: pending and paid' }),
  avgRating: Nullable(Type.Number()),
  mode: Mode,
});

