import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { type Destination, ErrorBody, PayIdentity, UpdateDestinationsBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { type WalletRow, findWallet } from '../wallets/store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

function identityOf(wallet: WalletRow) {
  return {
    handle: displayHandle(wallet.handle),
    displayName: wallet.display_name,
    country: wallet.country,
    currency: wallet.currency,
    preferredRail: wallet.preferred_rail,
    destinations: wallet.destinations as Destination[],
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
export async function identityRoutes(app: FastifyInstance, { db }: AppContext): Promise<void> {
  app.get('/api/pay-identity/:handle', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['pay identity'],
      summary: 'Resolve an @handle (in the key\'s mode) to its linked destinations and preferred rail',
      params: Type.Object({ handle: Type.String({ maxLength: 40 }) }),
      response: { 200: PayIdentity, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const handle = canonicalHandle((request.params as { handle: string }).handle);
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
      description: 'destinations replaces the whole list; preferredRail absent keeps the current one, null clears it.',
      body: UpdateDestinationsBody,
      response: { 200: PayIdentity, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    const body = request.body as Static<typeof UpdateDestinationsBody>;
    const destinations = validateDestinations(body.destinations);
    const [row] = await db.query<WalletRow>(
      `UPDATE wallets SET destinations = $2::jsonb, preferred_rail = CASE WHEN $3 THEN $4 ELSE preferred_rail END
       WHERE id = $1 RETURNING id, handle, mode, owner_type, merchant_id, display_name, country, currency, pin_hash, preferred_rail, destinations, created_at`,
      [principal.walletId, JSON.stringify(destinations), body.preferredRail !== undefined, body.preferredRail ?? null],
    );
    if (!row) throw notFound('wallet_not_found', 'Wallet not found');
    return identityOf(row);
  });
}
