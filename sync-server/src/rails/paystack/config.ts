// The adapter's configuration: exactly the environment variables of issue 24.

export const ENV_VARS = ['PAYSTACK_SECRET_KEY', 'PAYSTACK_BASE_URL'] as const;

/** Paystack's API base (openapi.yaml `servers`). */
export const DEFAULT_BASE_URL = 'https://api.paystack.co';

export interface PaystackConfig {
  /** The integration's secret key (sk_live_... / sk_test_...): Bearer token of every request and the webhook HMAC key. */
  secretKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
}

/** Undefined when PAYSTACK_SECRET_KEY is missing or blank (Paystack is then not routed to). */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): PaystackConfig | undefined {
  const secretKey = env.PAYSTACK_SECRET_KEY?.trim();
  if (!secretKey) return undefined;
  const baseUrl = (env.PAYSTACK_BASE_URL?.trim() || DEFAULT_BASE_URL).replace(/\/+$/, '');
  return { secretKey, baseUrl };
}
