import type { CallOptions, Tapline } from './client.ts';
import { type WaitOptions, pollUntil } from './polling.ts';
import type { Payment, PaymentRequest, Query } from './types.ts';

/** A payment's status after which nothing changes but a reversal (completed -> reversed). */
export const FINAL_PAYMENT_STATUSES: readonly Payment['status'][] = ['completed', 'failed', 'reversed'];

/** Payouts: POST /api/pay and the payment's status. */
export function paymentsResource(client: Tapline) {
  return {
    /**
     * Makes a payment. Its Idempotency-Key (yours, or a UUID made for this call) is kept across
     * retries: a retry after a lost answer is answered the first payment, never a second charge.
     */
    create: (body: PaymentRequest, options?: CallOptions): Promise<Payment> => client.request('post', '/api/pay', { ...options, body }),
    retrieve: (id: string, options?: CallOptions): Promise<Payment> => client.request('get', '/api/payments/{id}', { ...options, params: { id } }),
    /** One page of the merchant's payments, newest first. */
    list: (query?: Query<'/api/payments', 'get'>, options?: CallOptions) => client.request('get', '/api/payments', { ...options, ...(query ? { query } : {}) }),
    /** Every payment, page after page. */
    listAll: (query?: Omit<Query<'/api/payments', 'get'>, 'limit'>, options?: { pageSize?: number }) => client.paginate('/api/payments', { ...options, ...(query ? { query } : {}) }),
    /** Polls the payment until it is completed, failed or reversed (sandbox: a few seconds). */
    waitForOutcome: (id: string, options?: WaitOptions<Payment>): Promise<Payment> =>
      pollUntil(() => client.request('get', '/api/payments/{id}', { params: { id } }), (payment) => FINAL_PAYMENT_STATUSES.includes(payment.status), options),
  };
}
