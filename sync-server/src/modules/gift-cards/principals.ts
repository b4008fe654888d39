import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/database.ts';
import { principalOf } from '../../auth/hooks.ts';
import { forbidden, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { findWallet, findWalletById } from '../wallets/index.ts';
import type { Issuer, Redeemer } from './drafts.ts';

/** The three surfaces that issue and redeem: /api/merchant, /api/wallet and /api/agent gift-cards. */
export type Surface = 'merchant' | 'wallet' | 'agent';

/**
 * The issuer on each surface (CONTRACT.md): the merchant's wallet in the key's mode, the signed-in
 * holder's wallet, or the agent's wallet.
 */
export async function issuerOf(db: Queryable, request: FastifyRequest): Promise<Issuer> {
  const principal = principalOf(request);
  switch (principal.kind) {
    case 'merchant': {
      const wallet = await findWallet(db, principal.handle, principal.mode);
      if (!wallet) throw notFound('wallet_not_found', `No ${principal.mode} wallet for ${displayHandle(principal.handle)}`);
      return { type: 'merchant', id: principal.merchantId, walletId: wallet.id, handle: wallet.handle, mode: principal.mode, homeCurrency: wallet.currency, merchantId: principal.merchantId };
    }
    case 'wallet':
    case 'agent': {
      const wallet = await findWalletById(db, principal.walletId);
      if (!wallet) throw notFound('wallet_not_found', 'The signed-in wallet no longer exists');
      const id = principal.kind === 'wallet' ? principal.walletId : principal.agentId;
      return { type: principal.kind, id, walletId: wallet.id, handle: wallet.handle, mode: principal.mode, homeCurrency: wallet.currency, merchantId: null };
    }
    default:
      throw forbidden('credential_not_allowed', 'Gift cards are issued with a merchant key, a wallet token or an agent token');
  }
}

/** The redeemer: the same wallets, plus a merchant's terminal redeeming into its merchant's wallet. */
export async function redeemerOf(db: Queryable, request: FastifyRequest): Promise<Redeemer> {
  const principal = principalOf(request);
  switch (principal.kind) {
    case 'merchant':
    case 'terminal': {
      const wallet = await findWallet(db, principal.handle, principal.mode);
      if (!wallet) throw notFound('wallet_not_found', `No ${principal.mode} wallet for ${displayHandle(principal.handle)}`);
      return {
        kind: principal.kind,
        walletId: wallet.id,
        handle: wallet.handle,
        mode: principal.mode,
        merchantId: principal.merchantId,
        terminalId: principal.kind === 'terminal' ? principal.terminalId : null,
      };
    }
    case 'wallet':
    case 'agent':
      return { kind: principal.kind, walletId: principal.walletId, handle: principal.handle, mode: principal.mode, merchantId: null, terminalId: null };
    default:
      throw forbidden('credential_not_allowed', 'Gift cards are redeemed into the caller\'s wallet: use a merchant key, a terminal, a wallet or an agent token');
  }
}
