import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { ErrorBody, PayIdentity, UpdateDestinationsBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { canonicalHandle } from '../../http/validate.ts';
import { identityService } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** Pay Identity: an @handle resolves to its linked destinations; holders manage theirs on the wallet surface. */
export async function identityRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = identityService(context);

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
    return service.resolveHandle(canonicalHandle(request.params.handle), principal.mode);
  });

  app.get('/api/wallet/destinations', {
    config: { auth: ['wallet'] },
    schema: { tags: ['pay identity'], summary: 'The signed-in holder\'s Pay Identity', response: { 200: PayIdentity, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    return service.holderIdentity(principal.handle, principal.mode);
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
    return service.replaceDestinations(principal.walletId, request.body);
  });
}
