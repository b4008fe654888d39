import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Static } from 'typebox';
import type { Destination, PayIdentity, UpdateDestinationsBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { type WalletRow, findWallet, updateDestinations } from '../wallets/index.ts';

/** The rail that pays into a destination of each type. */
const RAIL_OF_DESTINATION: Record<Destination['type'], string> = { mobile_wallet: 'mobile_money', bank_account: 'bank_transfer' };

/**
 * The rail a payer should use: the one the holder chose; without a choice, the rail of the
 * destination marked preferred, else of the first one. Null only for a holder with neither.
 */
function preferredRailOf(wallet: WalletRow, destinations: readonly Destination[]): string | null {
  if (wallet.preferred_rail) return wallet.preferred_rail;
  const destination = destinations.find((candidate) => candidate.preferred) ?? destinations[0];
  return destination ? RAIL_OF_DESTINATION[destination.type] : null;
}

/** One record for both surfaces: a payer resolving the handle and its holder see the same Pay Identity. */
function identityOf(wallet: WalletRow): Static<typeof PayIdentity> {
  const destinations = wallet.destinations as Destination[];
  return {
    handle: displayHandle(wallet.handle),
    displayName: wallet.display_name,
    country: wallet.country,
    currency: wallet.currency,
    preferredRail: preferredRailOf(wallet, destinations),
    destinations,
  };
}

/** Checks destinations: supported country and currency, a valid phone for mobile wallets, an account number for banks, one preferred at most. */
function validateDestinations(destinations: readonly Destination[]): Destination[] {
  if (destinations.filter((destination) => destination.preferred).length > 1) throw badRequest('destinations_invalid', 'At most one destination may be preferred');
  return destinations.map((destination, index) => {
    const field = `destinations.${index}`;
    const country = supportedCountry(destination.country, `${field}.country`);
    const currency = supportedCurrency(destination.currency, `${field}.currency`);
    if (destination.type === 'mobile_wallet') {
      const phone = destination.phone ? parsePhoneNumberFromString(destination.phone) : undefined;
      if (!phone?.isValid()) throw badRequest('destinations_invalid', `${field}: a mobile_wallet needs a valid E.164 phone`);
      return { type: 'mobile_wallet', provider: destination.provider.trim(), phone: phone.number, country, currency, ...(destination.preferred ? { preferred: true } : {}) };
    }
    if (!destination.accountNumber) throw badRequest('destinations_invalid', `${field}: a bank_account needs an accountNumber`);
    return { type: 'bank_account', provider: destination.provider.trim(), accountNumber: destination.accountNumber, country, currency, ...(destination.preferred ? { preferred: true } : {}) };
  });
}

/**
 * Pay Identity's rules: an @handle resolves, in one mode, to its holder's linked destinations and
 * the rail to pay them by; the holder replaces them. The destinations and the preferred rail are
 * `wallets`' columns, read and written through its index.ts.
 */
export function identityService(context: AppContext) {
  const { db } = context;

  /** A handle (canonical, as the route read it) as a payer in `mode` sees it; 404 handle_not_found. */
  async function resolveHandle(handle: string, mode: Mode): Promise<Static<typeof PayIdentity>> {
    const wallet = await findWallet(db, handle, mode);
    if (!wallet) throw notFound('handle_not_found', `No ${mode} wallet ${displayHandle(handle)}`);
    return identityOf(wallet);
  }

  /** The signed-in holder's own identity; 404 wallet_not_found. */
  async function holderIdentity(handle: string, mode: Mode): Promise<Static<typeof PayIdentity>> {
    const wallet = await findWallet(db, handle, mode);
    if (!wallet) throw notFound('wallet_not_found', 'Wallet not found');
    return identityOf(wallet);
  }

  /** Replaces the holder's whole list of destinations (validated); an absent preferredRail keeps the current one, null clears it. */
  async function replaceDestinations(walletId: string, body: Static<typeof UpdateDestinationsBody>): Promise<Static<typeof PayIdentity>> {
    const destinations = validateDestinations(body.destinations);
    const row = await updateDestinations(db, walletId, destinations, body.preferredRail);
    if (!row) throw notFound('wallet_not_found', 'Wallet not found');
    return identityOf(row);
  }

  return { resolveHandle, holderIdentity, replaceDestinations };
}

export type IdentityService = ReturnType<typeof identityService>;
