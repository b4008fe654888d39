import { Type } from 'typebox';
import { CurrencyCode, Nullable, Timestamp } from './common.ts';

/** docs/catalogue.md: the merchant's catalogue (issue 16). Prices in major units, tax rates in percent. */

const ProductName = Type.String({ minLength: 1, maxLength: 120 });
const Price = Type.Number({ minimum: 0, maximum: 1e12, description: 'One unit\'s price in major units (tax included when taxInclusive); 0 allowed' });
const TaxRatePercent = Type.Number({ minimum: 0, maximum: 100, description: 'Percent, at most two decimals (7.5 = 7.5 %)' });
const Sku = Type.String({ minLength: 1, maxLength: 64, description: 'Unique per merchant and mode among products not archived' });
const Barcode = Type.String({ pattern: '^[0-9A-Za-z\\-. ]{1,64}$', description: 'What the barcode scanner types (EAN, UPC, Code 128...)' });
const Category = Type.String({ minLength: 1, maxLength: 60 });
const ImageUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'https (http allowed in test mode)' });
const Stock = Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, description: 'Units in stock (a stock take sets it)' });

export const CreateCatalogueProductBody = Type.Object({
  name: ProductName,
  price: Price,
  currency: Type.Optional(CurrencyCode),
  sku: Type.Optional(Nullable(Sku)),
  barcode: Type.Optional(Nullable(Barcode)),
  category: Type.Optional(Nullable(Category)),
  taxRate: Type.Optional(TaxRatePercent),
  taxInclusive: Type.Optional(Type.Boolean({ default: true })),
  imageUrl: Type.Optional(Nullable(ImageUrl)),
  trackStock: Type.Optional(Type.Boolean({ default: false })),
  stock: Type.Optional(Nullable(Stock)),
  active: Type.Optional(Type.Boolean({ default: true })),
}, { additionalProperties: false });

export const UpdateCatalogueProductBody = Type.Object({
  name: Type.Optional(ProductName),
  price: Type.Optional(Price),
  currency: Type.Optional(CurrencyCode),
  sku: Type.Optional(Nullable(Sku)),
  barcode: Type.Optional(Nullable(Barcode)),
  category: Type.Optional(Nullable(Category)),
  taxRate: Type.Optional(TaxRatePercent),
  taxInclusive: Type.Optional(Type.Boolean()),
  imageUrl: Type.Optional(Nullable(ImageUrl)),
  trackStock: Type.Optional(Type.Boolean()),
  stock: Type.Optional(Nullable(Stock)),
  active: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, minProperties: 1 });

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
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'Name (substring), SKU (prefix) or barcode (exact), case-insensitive' })),
  category: Type.Optional(Category),
  active: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean({ default: false, description: 'true: the archived products only' })),
});

export const CatalogueProductParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
