// Each provider's fake as the live-payout tests drive it: started with the server's callback
// address, its environment, what it paid (by idempotency key) and its magic receivers.
import { startFlutterwaveFake, SCENARIOS as FLUTTERWAVE } from '../fakes/flutterwave/index.ts';
import { startMomoFake, SCENARIOS as MOMO } from '../fakes/momo/index.ts';
import { startMpesaFake, SCENARIOS as MPESA } from '../fakes/mpesa/index.ts';
import { startPaystackFake, SCENARIOS as PAYSTACK } from '../fakes/paystack/index.ts';

export const SCENARIO_NAMES = ['success', 'failure', 'insufficient_balance', 'invalid_account', 'no_answer', 'error_then_success', 'callback_lost', 'duplicate_callback', 'reversal_after_success'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface ScenarioReceiver {
  rail: string;
  toCode: string;
  receiver: unknown;
}

export interface RunningFake {
  env: Record<string, string>;
  /** How many times money went out under each idempotency key. */
  paidTimes(): Map<string, number>;
  /** How many requests to pay out (create a transfer) the fake has received, answered or not. */
  transferRequests(): number;
  stop(): Promise<void>;
}

export interface ProviderUnderTest {
  name: 'paystack' | 'flutterwave' | 'mpesa' | 'momo';
  scenarios: Readonly<Record<ScenarioName, ScenarioReceiver>>;
  /** The currency the merchant pays in (M-Pesa pays whole shillings: paid in KES, nothing converts to cents). */
  payCurrency: 'NGN' | 'KES';
  /** Starts the fake; `publicBaseUrl` is the server's, where its callbacks go. `delayScale` shortens its waits. */
  start(publicBaseUrl: string, delayScale: number): Promise<RunningFake>;
}

export const PROVIDERS: readonly ProviderUnderTest[] = [
  {
    name: 'paystack',
    scenarios: PAYSTACK,
    payCurrency: 'NGN',
    async start(publicBaseUrl, delayScale) {
      const fake = await startPaystackFake({ callbackBase: `${publicBaseUrl}/api/rails/paystack/webhook`, delayScale });
      return {
        env: fake.env,
        paidTimes: () => new Map(fake.payouts().map((payout) => [payout.key, payout.times])),
        transferRequests: () => fake.transfersReceived(),
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'flutterwave',
    scenarios: FLUTTERWAVE as unknown as Record<ScenarioName, ScenarioReceiver>,
    payCurrency: 'NGN',
    async start(publicBaseUrl, delayScale) {
      const fake = await startFlutterwaveFake({ callbackBase: `${publicBaseUrl}/api/rails/flutterwave/webhook`, delayScale });
      return {
        env: fake.env,
        paidTimes: () => new Map(fake.payouts().map((payout) => [payout.key, payout.timesPaid])),
        transferRequests: () => fake.requests().filter((request) => request === 'POST /v3/transfers').length,
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'momo',
    scenarios: MOMO as unknown as Record<ScenarioName, ScenarioReceiver>,
    payCurrency: 'NGN',
    async start(publicBaseUrl, delayScale) {
      const fake = await startMomoFake({ callbackBase: publicBaseUrl, delayScale });
      return {
        env: fake.env,
        paidTimes: () => new Map(fake.payouts().map((payout) => [payout.key, payout.times])),
        transferRequests: () => fake.requests().filter((request) => request.method === 'POST' && request.path.endsWith('/disbursement/v1_0/transfer')).length,
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'mpesa',
    scenarios: Object.fromEntries(Object.entries(MPESA).map(([name, receiver]) => [name, { rail: 'mobile_money', toCode: 'KE', receiver }])) as Record<ScenarioName, ScenarioReceiver>,
    payCurrency: 'KES',
    async start(publicBaseUrl, delayScale) {
      const fake = await startMpesaFake({ callbackBase: publicBaseUrl, delayScale });
      return {
        env: fake.env,
        paidTimes: () => new Map(fake.payouts().map((payout) => [payout.key, payout.times])),
        transferRequests: () => fake.requests().filter((request) => request.method === 'POST' && request.path === '/mpesa/b2c/v3/paymentrequest').length,
        stop: () => fake.stop(),
      };
    },
  },
];
