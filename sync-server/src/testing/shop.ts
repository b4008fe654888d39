import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import { ADMIN, type ApiResponse, type TestServer, uniqueHandle } from './server.ts';

export { balanceMinor, systemBalance } from './ledger.ts';

/** Shared by the store suites (not a test file itself). */

export type Json = Record<string, unknown>;

export interface Product {
  id: string;
  slug: string;
  name: string;
  basePrice: number;
  baseCurrency: string;
  price: number;
  stock: number;
  status: string;
  images: string[];
  flashSale: Json | null;
  priceInWalletCurrency?: number;
  walletCurrency?: string;
  walletFxRate?: number;
  [key: string]: unknown;
}

export interface Order {
  id: string;
  status: string;
  mode: string;
  quantity: number;
  buyerHandle: string;
  product: { id: string; slug: string; name: string; variantName: string | null };
  shipping: { name: string; phone: string; address: string; city: string; country: string };
  notes: string | null;
  payment: {
    total: number;
    subtotal: number;
    unitPrice: number;
    currency: string;
    walletDebit: number;
    giftCardDebit: number;
    discount: number;
    referralCode: string | null;
    flashSaleId: string | null;
    walletCharged: { amount: number; currency: string; fxRate: number | null } | null;
    giftCardPrefix: string | null;
  };
  timeline: { status: string; at: string; note?: string }[];
}

export interface CheckoutAnswer {
  order: Order;
  walletDebit: number;
  giftCardDebit: number;
  remaining: number;
  remainingCurrency: string;
  giftCardRemaining: number | null;
}

/** The modules' clock: a fixed instant the tests move forward (never a real wait). */
export function testClock(start = '2030-05-04T10:00:00.000Z') {
  let time = Date.parse(start);
  return {
    now: () => new Date(time),
    advance(ms: number) {
      time += ms;
    },
  };
}

export const HOUR = 3_600_000;

let slugCounter = 0;
export function uniqueSlug(prefix = 'item'): string {
  slugCounter += 1;
  return `${prefix}-${process.pid}-${slugCounter}`;
}

/** Creates a product through the admin API and asserts 201. */
export async function createProduct(s: TestServer, fields: Json = {}): Promise<Product> {
  const created = await s.request<Product>('POST', '/api/admin/store/products', {
    headers: ADMIN,
    body: { slug: uniqueSlug(), name: 'Tap Ring', category: 'rings', basePrice: 50, baseCurrency: 'NGN', stock: 10, ...fields },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** A funded buyer wallet (test mode unless said). */
export async function buyer(s: TestServer, options: { fund?: number; currency?: string; country?: string; pin?: string; mode?: 'test' | 'live'; prefix?: string } = {}): Promise<string> {
  const handle = uniqueHandle(options.prefix ?? 'buyer');
  await s.createWallet({
    handle,
    pin: options.pin ?? '1234',
    currency: options.currency ?? 'NGN',
    country: options.country ?? 'NG',
    mode: options.mode ?? 'test',
    ...(options.fund ? { fund: options.fund } : {}),
  });
  return handle;
}

export function shipping(extra: Json = {}): Json {
  return { shippingName: 'Ada Obi', shippingPhone: '+234 803 555 0142', shippingAddress: '12 Marina Road', shippingCity: 'Lagos', shippingCountry: 'NG', ...extra };
}

export function checkout(s: TestServer, body: Json, headers: Record<string, string> = {}): Promise<ApiResponse<CheckoutAnswer & Json>> {
  return s.request<CheckoutAnswer & Json>('POST', '/api/store/checkout', { body: { quantity: 1, ...shipping(), ...body }, headers });
}

export async function stockOf(s: TestServer, productId: string): Promise<number> {
  const [row] = await s.db.query<{ stock: number }>('SELECT stock FROM store_products WHERE id = $1', [productId]);
  return row?.stock ?? -1;
}

/** A merchant that issues gift cards (its test wallet has a sandbox float). */
export async function cardIssuer(s: TestServer): Promise<Record<string, string>> {
  const merchant = await s.createMerchant();
  return { 'x-merchant-api-key': merchant.testKey };
}

export async function issueCard(s: TestServer, headers: Record<string, string>, body: Json): Promise<{ id: string; code: string; codePrefix: string }> {
  const issued = await s.request<{ id: string; code: string; codePrefix: string }>('POST', '/api/merchant/gift-cards', { headers, body });
  assert.equal(issued.status, 201, JSON.stringify(issued.body));
  return issued.body;
}

export async function cardOf(s: TestServer, id: string): Promise<{ status: string; amountRemaining: number }> {
  const card = await s.request<{ status: string; amountRemaining: number }>('GET', `/api/admin/gift-cards/${id}`, { headers: ADMIN });
  assert.equal(card.status, 200, JSON.stringify(card.body));
  return card.body;
}

/** A real SMTP server on a free loopback port that keeps every message it receives. */
export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
}

export async function startSmtpCapture(): Promise<{ url: string; messages: CapturedMail[]; close(): Promise<void> }> {
  const messages: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
