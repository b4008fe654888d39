import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { type Destination, ErrorBody, PayIdentity, UpdateDestinationsBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { type WalletRow, findWallet, updateDestinations } from '../wallets/index.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

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

function identityOf(wallet: WalletRow) {
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
export function validateDestinations(destinations: readonly Destination[]): Destination[] {
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

/** Pay Identity: an @handle resolves to its linked destinations; holders manage theirs on the wallet surface. */
export async function identityRoutes(app: TypedApp, { db }: AppContext): Promise<void> {
  app.get('/api/pay-identity/:handle', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['pay identity'],
      summary: 'Resolve an @handle (in the key\'s mode) to its linked destinations and preferred rail',
      description: 'preferredRail is the rail the holder chose; without a choice, the rail of the destination marked preferred, else of the first destination (mobile_wallet: mobile_money, bank_account: bank_transfer); null only without either.',
      params: Type.Object({ handle: Type.String({ maxLength: 40 }) }),
      response: { 200: PayIdentity, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const handle = canonicalHandle(request.params.handle);
    const wallet = await findWallet(db, handle, principal.mode);
    if (!wallet) throw notFound('handle_not_found', `No ${principal.mode} wallet ${displayHandle(handle)}`);
    return identityOf(wallet);
  });

  app.get('/api/wallet/destinations', {
    config: { auth: ['wallet'] },
    schema: { tags: ['pay identity'], summary: 'The signed-in holder\'s Pay Identity', response: { 200: PayIdentity, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    const wallet = await findWallet(db, principal.handle, principal.mode);
    if (!wallet) throw notFound('wallet_not_found', 'Wallet not found');
    return identityOf(wallet);
  });

  app.put('/api/wallet/destinations', {
    config: { auth: ['wallet'] },
    schema: {
      tags: ['pay identity'],
      summary: 'Replace the holder\'s linked destinations (and preferred rail)',
      description: 'destinations replaces the whole list; preferredRail absent keeps the current one, null clears it (the answer then names the preferred, else the first, destination\'s rail).',
      body: UpdateDestinationsBody,
      response: { 200: PayIdentity, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    const body = request.body;
    const destinations = validateDestinations(body.destinations);
    const row = await updateDestinations(db, principal.walletId, destinations, body.preferredRail);
    if (!row) throw notFound('wallet_not_found', 'Wallet not found');
    return identityOf(row);
  });
}
