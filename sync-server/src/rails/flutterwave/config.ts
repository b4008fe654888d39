// Flutterwave's configuration: the three environment variables issue 24 names, nothing else.

export const FLUTTERWAVE_ENV_VARS = ['FLUTTERWAVE_SECRET_KEY', 'FLUTTERWAVE_SECRET_HASH', 'FLUTTERWAVE_BASE_URL'] as const;

export const DEFAULT_BASE_URL = 'https://api.flutterwave.com';

/**
 * Who sends the money, for the corridors where Flutterwave asks (Kenya: `meta.sender`,
 * `meta.sender_country`, `meta.mobile_number`, per its mobile money transfer page and the SDK's
 * transferSchema). Each payout carries its own from the merchant's profile (PayoutRequest.sender,
 * destinations.ts); this one, which no environment variable sets, is only the fallback of an
 * adapter built in code.
 */
export interface FlutterwaveSender {
  name: string;
  /** ISO 3166 alpha-2. */
  country: string;
  /** Digits with the country code, no '+'. */
  mobileNumber: string;
}

export interface FlutterwaveConfig {
  /** FLUTTERWAVE_SECRET_KEY: every request carries `Authorization: Bearer <it>`. */
  secretKey: string;
  /** FLUTTERWAVE_SECRET_HASH: the dashboard's webhook secret hash, sent back as the `verif-hash` header. */
  secretHash: string;
  /** FLUTTERWAVE_BASE_URL without a trailing slash; paths start with /v3/. */
  baseUrl: string;
  sender?: FlutterwaveSender;
}

export function configFromEnv(env: Readonly<Record<string, string | undefined>>): FlutterwaveConfig | undefined {
  const secretKey = env.FLUTTERWAVE_SECRET_KEY?.trim();
  const secretHash = env.FLUTTERWAVE_SECRET_HASH?.trim();
  if (!secretKey || !secretHash) return undefined;
  const base = env.FLUTTERWAVE_BASE_URL?.trim() || DEFAULT_BASE_URL;
  try {
    const url = new URL(base);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  } catch {
    return undefined;
  }
  return { secretKey, secretHash, baseUrl: base.replace(/\/+$/, '') };
}
