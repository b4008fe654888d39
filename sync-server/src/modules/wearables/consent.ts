import type { Database } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { forbidden } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { type WalletRow, checkWalletPin } from '../wallets/index.ts';
import type { TagConsent } from './store.ts';

/**
 * Whether a merchant may make a tag pay from `wallet`, and how its holder agreed. Its own wallet
 * needs nobody; anyone else's needs the holder's PIN (the wallet's lock-out applies: 403
 * wrong_pin, then 429). Test mode moves only sandbox money, so the spec's body without holderPin
 * is accepted there, and a holderPin that is sent is still checked. A live link without the PIN
 * is 403 holder_consent_required: the holder may also link it from their own session.
 */
export async function merchantLinkConsent(
  db: Database,
  merchant: { merchantId: string; mode: Mode },
  wallet: WalletRow,
  holderPin: string | undefined,
  now: Date,
): Promise<TagConsent> {
  if (wallet.owner_type === 'merchant' && wallet.merchant_id === merchant.merchantId) return 'own_wallet';
  if (holderPin !== undefined) {
    await checkWalletPin(db, wallet, holderPin, now);
    return 'holder_pin';
  }
  if (merchant.mode === 'test') return 'test_mode';
  throw forbidden(
    'holder_consent_required',
    `Linking a tag to ${displayHandle(wallet.handle)} needs the holder's consent: send their wallet PIN as holderPin, or let them register it from their wallet (POST /api/wallet/wearables)`,
  );
}
