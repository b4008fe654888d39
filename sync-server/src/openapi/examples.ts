/**
 * Request and response examples of the main flows, by operation id: a sandbox payment, a POS
 * session paid by a tag tap, a tag, an FX quote, a checkout session. openapi.test.ts checks every
 * example against its operation's schema, so an example cannot drift from the API it shows.
 */

export interface OperationExamples {
  request?: unknown;
  /** By status code. */
  responses?: Record<string, unknown>;
}

const PAYMENT_ID = 'pay_3f6c2a9e51b04d7c8e2f9a1b6d4c7e0f5a2b8c1d';
const SESSION_ID = '5b0f6c9e-2d41-8a37-9c5e-7f1a2b3c4d5e';
const MERCHANT_ID = 'mer_Xb3kQ9vT2mLp7RcW1nYd8A';
const BASE = 'http://127.0.0.1:3000';

const payment = {
  success: true,
  id: PAYMENT_ID,
  paymentId: PAYMENT_ID,
  transactionId: PAYMENT_ID,
  status: 'pending',
  amount: 25000,
  currency: 'NGN',
  destinationAmount: 2072.5,
  destinationCurrency: 'KES',
  fxRate: 0.0829,
  fee: 375,
  estimatedArrival: '2026-11-24T10:15:03.000Z',
  providerReference: null,
  timeline: [{ status: 'pending', at: '2026-11-24T10:15:00.000Z' }],
  createdAt: '2026-11-24T10:15:00.000Z',
  updatedAt: '2026-11-24T10:15:00.000Z',
  mode: 'test',
  rail: 'mobile_money',
  fromCode: 'NG',
  toCode: 'KE',
  reference: 'order-1042',
};

const posSession = {
  sessionId: SESSION_ID,
  status: 'pending',
  amount: 4500,
  currency: 'NGN',
  description: 'Jollof rice and chicken',
  tapUrl: `${BASE}/tap/${SESSION_ID}`,
  qrPayload: `${BASE}/tap/${SESSION_ID}`,
  ttlSeconds: 90,
  expiresAt: '2026-11-24T10:16:30.000Z',
  createdAt: '2026-11-24T10:15:00.000Z',
  merchantId: MERCHANT_ID,
  mode: 'test',
};

const paidPosSession = {
  ...posSession,
  status: 'completed',
  payerHandle: '@ada',
  walletRef: 'wtx_pos_5b0f6c9e2d418a379c5e7f1a2b3c4d5e',
  tagId: 'TG1A2B3C4D',
  completedAt: '2026-11-24T10:15:07.000Z',
};

const EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  createPayment: {
    request: { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 25000, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiru Kamau', reference: 'order-1042' },
    responses: {
      201: payment,
      422: { error: 'Insufficient funds', code: 'insufficient_funds' },
    },
  },
  getPayment: {
    responses: {
      200: {
        ...payment,
        status: 'completed',
        timeline: [
          { status: 'pending', at: '2026-11-24T10:15:00.000Z' },
          { status: 'processing', at: '2026-11-24T10:15:01.500Z' },
          { status: 'completed', at: '2026-11-24T10:15:03.000Z' },
        ],
        updatedAt: '2026-11-24T10:15:03.000Z',
      },
      404: { error: `No payment ${PAYMENT_ID}`, code: 'payment_not_found' },
    },
  },
  createPosSession: {
    request: { amount: 4500, currency: 'NGN', description: 'Jollof rice and chicken', callbackUrl: 'https://shop.example/tapline/pos-callback' },
    responses: { 201: { ...posSession, callbackUrl: 'https://shop.example/tapline/pos-callback' } },
  },
  tapPosSession: {
    request: { tagId: 'TG1A2B3C4D' },
    responses: {
      200: paidPosSession,
      403: { error: 'This tap is above the tag\'s no-PIN limit: repeat it with the holder\'s PIN', code: 'pin_required' },
      409: { error: `POS session ${SESSION_ID} is not pending (completed)`, code: 'session_not_pending' },
    },
  },
  getPosSession: { responses: { 200: paidPosSession } },
  createWearable: {
    request: { handle: '@ada', tagType: 'ring', displayName: 'Ada ring' },
    responses: {
      201: {
        tagId: 'TG1A2B3C4D',
        handle: '@ada',
        tagType: 'ring',
        displayName: 'Ada ring',
        status: 'active',
        tapUrl: `${BASE}/tap/TG1A2B3C4D`,
        redirectTo: '/pay/ada?source=nfc',
        tapCount: 0,
        mode: 'test',
        consent: 'test_mode',
        disabledBy: null,
        noPinLimits: { currency: 'NGN', perTap: 30000, perDay: 75000, perTapDefault: 30000, perDayDefault: 75000 },
        linkedAt: '2026-11-24T10:14:00.000Z',
        lastTappedAt: null,
        createdAt: '2026-11-24T10:14:00.000Z',
        updatedAt: '2026-11-24T10:14:00.000Z',
      },
    },
  },
  getFxQuote: {
    responses: {
      200: {
        quoteId: 'fxq_q7T1mZcV9xK2pR8sL4nB0w',
        from: 'NGN',
        to: 'KES',
        amount: 25000,
        midRate: 0.08374,
        rate: 0.0829,
        spreadPct: 1,
        fee: 375,
        feeCurrency: 'NGN',
        receive: 2072.5,
        rail: 'mobile_money',
        asOf: '2026-09-29',
        expiresAt: '2026-11-24T10:16:00.000Z',
      },
    },
  },
  createCheckoutSession: {
    request: { amount: 45, currency: 'NGN', reference: 'order-1042', description: 'Blue ankara' },
    responses: {
      201: {
        id: 'cs_Hq2VtY8xPz4LmN6rKc1bWg',
        status: 'open',
        mode: 'test',
        amount: 45,
        currency: 'NGN',
        reference: 'order-1042',
        description: 'Blue ankara',
        country: 'NG',
        rails: ['mobile_money', 'bank_transfer', 'qr'],
        url: `${BASE}/pay/checkout/cs_Hq2VtY8xPz4LmN6rKc1bWg`,
        qrPayload: `${BASE}/pay/checkout/cs_Hq2VtY8xPz4LmN6rKc1bWg`,
        merchant: { name: 'Mama Put Kitchen', handle: '@mamaput' },
        createdAt: '2026-11-24T10:15:00.000Z',
        expiresAt: '2026-11-24T10:45:00.000Z',
      },
    },
  },
};

export function examplesFor(operationId: string): OperationExamples | undefined {
  return EXAMPLES[operationId];
}

/** The operation ids that have examples (the test checks each against its schemas). */
export function operationsWithExamples(): string[] {
  return Object.keys(EXAMPLES);
}
