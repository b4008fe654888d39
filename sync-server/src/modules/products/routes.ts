import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { CreateCatalogueProductBody, ErrorBody, ListOf, CatalogueProductListQuery, CatalogueProductParams, CatalogueProductRecord, UpdateCatalogueProductBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { derivedUuid } from '../../http/idempotency.ts';
import { productRecord as record, productsService } from './service.ts';
import type { ProductScope } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const merchantOnly = { auth: ['merchant'] } as const;

const RULES = `Prices in major units of the product's currency (default: the merchant's), 0 allowed; taxRate in percent with at most
two decimals (7.5), taxInclusive (default true) says whether the price includes it. A product that tracks stock needs a stock
count (400 stock_required); stock is null otherwise, and oversold is stock < 0 (only offline sales go below zero). sku is unique per
merchant and mode among products not archived (409 sku_taken). Test and live products are apart. Every change replicates to the
merchant's kiosks (the products sync collection, docs/catalogue.md).`;

function scopeOf(request: FastifyRequest): ProductScope {
  const principal = principalAs(request, 'merchant');
  return { merchantId: principal.merchantId, mode: principal.mode };
}

/** docs/catalogue.md: the merchant's catalogue. HTTP only: the rules are in service.ts. */
export async function productRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const products = productsService(context);

  app.post('/api/merchant/products', {
    config: { ...merchantOnly, idempotency: 'optional' },
    schema: {
      tags: ['products'],
      summary: 'Add a product to the catalogue (Idempotency-Key honoured: a retry answers the same product)',
      description: RULES,
      body: CreateCatalogueProductBody,
      response: { 201: CatalogueProductRecord, ...errors },
    },
  }, async (request, reply) => {
    const row = await products.create(scopeOf(request), request.body, derivedUuid(request, 'product'));
    return reply.status(201).send(record(row));
  });

  app.get('/api/merchant/products', {
    config: merchantOnly,
    schema: {
      tags: ['products'],
      summary: 'List products by name: search (name, SKU prefix, exact barcode; case-insensitive), category, active; archived=true lists the archived ones',
      querystring: CatalogueProductListQuery,
      response: { 200: ListOf(CatalogueProductRecord), ...errors },
    },
  }, async (request) => {
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await products.list(scopeOf(request), { search: query.search, category: query.category, active: query.active, archived: query.archived ?? false }, limit, offset);
    return { data: page.rows.map(record), total: page.total, limit, offset };
  });

  app.get('/api/merchant/products/:id', {
    config: merchantOnly,
    schema: { tags: ['products'], summary: 'A product', params: CatalogueProductParams, response: { 200: CatalogueProductRecord, ...errors } },
  }, async (request) => record(await products.get(scopeOf(request), request.params.id)));

  app.patch('/api/merchant/products/:id', {
    config: merchantOnly,
    schema: {
      tags: ['products'],
      summary: 'Change a product (any of the create fields; stock sets the count, a stock take)',
      description: RULES,
      params: CatalogueProductParams,
      body: UpdateCatalogueProductBody,
      response: { 200: CatalogueProductRecord, ...errors },
    },
  }, async (request) => record(await products.update(scopeOf(request), request.params.id, request.body)));

  app.post('/api/merchant/products/:id/archive', {
    config: merchantOnly,
    schema: {
      tags: ['products'],
      summary: 'Archive a product: off the kiosks (replicated as deleted) and out of the default list; its sales keep their lines',
      params: CatalogueProductParams,
      response: { 200: CatalogueProductRecord, ...errors },
    },
  }, async (request) => record(await products.archive(scopeOf(request), request.params.id, true)));

  app.post('/api/merchant/products/:id/unarchive', {
    config: merchantOnly,
    schema: {
      tags: ['products'],
      summary: 'Bring an archived product back (409 sku_taken when another product took its SKU meanwhile)',
      params: CatalogueProductParams,
      response: { 200: CatalogueProductRecord, ...errors },
    },
  }, async (request) => record(await products.archive(scopeOf(request), request.params.id, false)));
}
