import assert from 'node:assert/strict';
import type { SubscriptionChargeRecord, SubscriptionRecord } from '@tapline/shared/schemas';
import { ADMIN, type ApiResponse, type TestServer } from './server.ts';
import { holder } from './gift-cards.ts';
import { subscriptionJobs } from '../modules/subscriptions/routes.ts';

/** Shared by the subscription suites (not a test file itself). */

export type Json = Record<string, unknown>;
export type Subscription = SubscriptionRecord;
export type Charge = SubscriptionChargeRecord;

/** A monthly plan of the merchant (price in major units). */
export async function createPlan(s: TestServer, headers: Record<string, string>, fields: { name?: string; price?: number; currency?: string } = {}): Promise<{ id: string; price: number; currency: string }> {
  const plan = await s.request<{ id: string; price: number; currency: string }>('POST', '/api/merchant/subscription-plans', {
    headers,
    body: { name: fields.name ?? 'Pro', price: fields.price ?? 1500, currency: fields.currency ?? 'NGN' },
  });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  return plan.body;
}

export function subscribe(s: TestServer, headers: Record<string, string>, body: Json, extraHeaders: Record<string, string> = {}): Promise<ApiResponse<Subscription & Json>> {
  return s.request<Subscription & Json>('POST', '/api/subscriptions', { headers: { ...headers, ...extraHeaders }, body });
}

/** Subscribes and asserts 201. */
export async function subscribed(s: TestServer, headers: Record<string, string>, body: Json): Promise<Subscription> {
  const created = await subscribe(s, headers, body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

export async function readSubscription(s: TestServer, headers: Record<string, string>, id: string): Promise<Subscription> {
  const read = await s.request<Subscription>('GET', `/api/subscriptions/${id}`, { headers });
  assert.equal(read.status, 200, JSON.stringify(read.body));
  return read.body;
}

export async function chargesOf(s: TestServer, headers: Record<string, string>, id: string): Promise<Charge[]> {
  const page = await s.request<{ data: Charge[]; total: number }>('GET', `/api/subscriptions/${id}/charges?limit=100`, { headers });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.equal(page.body.total, page.body.data.length);
  return page.body.data;
}

/** The subscription.* events written to the outbox for one subscription, oldest first, parsed. */
export async function eventsOf(s: TestServer, subscriptionId: string): Promise<Json[]> {
  const rows = await s.db.query<{ body: string }>(
    "SELECT body FROM events WHERE type LIKE 'subscription.%' AND body::jsonb ->> 'subscriptionId' = $1 ORDER BY created_at, type = 'subscription.cancelled', id",
    [subscriptionId],
  );
  return rows.map((row) => JSON.parse(row.body) as Json);
}

/** Credits a wallet from the sandbox faucet (major units). */
export async function credit(s: TestServer, handle: string, amount: number, currency = 'NGN'): Promise<void> {
  const credited = await s.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount, currency } });
  assert.equal(credited.status, 200, JSON.stringify(credited.body));
}

export function renew(s: TestServer) {
  return subscriptionJobs(s.context).runOnce();
}

/** A plan of the merchant and a new customer (funded with `fund` major units) subscribed to it. */
export async function subscribedCustomer(s: TestServer, merchantHeaders: Record<string, string>, options: { price: number; fund: number }) {
  const plan = await createPlan(s, merchantHeaders, { price: options.price });
  const customer = await holder(s, { fund: options.fund });
  const created = await subscribed(s, customer.headers, { planId: plan.id });
  return { plan, customer, created };
}
