// The MTN MoMo adapter's configuration, read from exactly the environment variables of issue 24.

/** MTN's sandbox gateway (vendor/momo/testing.md, "The Sandbox URL"); production gateways differ per operator. */
export const DEFAULT_BASE_URL = 'https://sandbox.momodeveloper.mtn.com';

export const ENV_VARS = [
  'MOMO_API_USER',
  'MOMO_API_KEY',
  'MOMO_COLLECTION_SUBSCRIPTION_KEY',
  'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY',
  'MOMO_TARGET_ENVIRONMENT',
  'MOMO_BASE_URL',
] as const;

export interface MomoConfig {
  /** The API user (a UUID) and its API key: the Basic credentials of the token requests (api-description.md, "Oauth 2.0"). */
  apiUser: string;
  apiKey: string;
  /**
   * One `Ocp-Apim-Subscription-Key` per product (quickstart.md: "Developers are issued a Primary
   * Key and Secondary Key for every product"). Payouts need the Disbursements key, collections the
   * Collections key; each is optional, and the adapter offers only what it has a key for.
   */
  collectionSubscriptionKey: string | undefined;
  disbursementSubscriptionKey: string | undefined;
  /** `X-Target-Environment`: `sandbox` (testing.md) or the operator's wallet platform, e.g. `mtnuganda`. */
  targetEnvironment: string;
  /** Without a trailing slash. */
  baseUrl: string;
}

function value(env: Readonly<Record<string, string | undefined>>, name: (typeof ENV_VARS)[number]): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

/**
 * Required: MOMO_API_USER, MOMO_API_KEY, MOMO_TARGET_ENVIRONMENT, and at least one of the two
 * subscription keys. MOMO_DISBURSEMENT_SUBSCRIPTION_KEY set = configured for payouts;
 * MOMO_COLLECTION_SUBSCRIPTION_KEY set = configured for collections (request-to-pay).
 * MOMO_BASE_URL defaults to the sandbox. The target environment has no default: it names the
 * operator's wallet platform and a wrong one fails every request (NOT_ALLOWED_TARGET_ENVIRONMENT).
 */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): MomoConfig | undefined {
  const apiUser = value(env, 'MOMO_API_USER');
  const apiKey = value(env, 'MOMO_API_KEY');
  const targetEnvironment = value(env, 'MOMO_TARGET_ENVIRONMENT');
  const collectionSubscriptionKey = value(env, 'MOMO_COLLECTION_SUBSCRIPTION_KEY');
  const disbursementSubscriptionKey = value(env, 'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY');
  if (!apiUser || !apiKey || !targetEnvironment) return undefined;
  if (!collectionSubscriptionKey && !disbursementSubscriptionKey) return undefined;
  const baseUrl = (value(env, 'MOMO_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  return { apiUser, apiKey, collectionSubscriptionKey, disbursementSubscriptionKey, targetEnvironment, baseUrl };
}
