/** The merchant's catalogue (docs/catalogue.md): routes, rules, and what other modules use of it. */
export { productRoutes } from './routes.ts';
export { saleRoutes } from './routes-sales.ts';
export { productDocument, productRecord, productsService, percentToBps, bpsToPercent, priceToMinor } from './service.ts';
export { type ProductRow, type ProductScope, lockProducts, findProducts, moveStock, productsAfter } from './store.ts';
export { type SaleItemInput, type StoredTender, cartFromItems, cartOfDocument, checkCartAmount, checkStock, moveSaleStock, saleLineRecords, storedLines, storedTenders, tenderRecords, tenderTotal, unitsByProduct } from './sales.ts';
