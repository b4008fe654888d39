import type { Mode } from '../../auth/secrets.ts';

/** The merchant calling, from its key or dashboard session, in the credential's mode. */
export interface MerchantCaller {
  merchantId: string;
  handle: string;
  mode: Mode;
}
