import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { BalanceResponse, ErrorBody, SessionResponse, WalletSessionBody, WalletTierRecord } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { canonicalHandle, displayHandle } from '../../http/validate.ts';
import { notFound } from '../../http/errors.ts';
import { balanceResponse, checkWalletPin, requireWallet } from './service.ts';
import { findWallet, findWalletById, insertWalletSession, revokeWalletSession } from './store.ts';
import { hasTier, tierRecord, tierStanding } from './tiers.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** The wallet holder's surface: sign in with handle and PIN, then `Bearer wallet.<token>`. */
export async function walletRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config, now } = context;
  app.post('/api/wallet/sessions', {
    schema: {
      tags: ['wallet'],
      summary: 'Sign in with handle and PIN; 5 wrong PINs lock the wallet for 15 minutes',
      body: WalletSessionBody,
      response: { 201: SessionResponse, ...errors },
    },
  }, async (request, reply) => {
    const body = request.body;
    const handle = canonicalHandle(body.handle);
    // Without a mode, the test wallet is meant when there is one (provisioning defaults to test).
    const wallet = body.mode ? await findWallet(db, handle, body.mode) : ((await findWallet(db, handle, 'test')) ?? (await findWallet(db, handle, 'live')));
    if (!wallet) throw notFound('wallet_not_found', `No wallet with handle ${displayHandle(handle)}`);
    await checkWalletPin(db, wallet, body.pin, now());
    const session = await insertWalletSession(db, wallet.id, wallet.mode, config.sessionTtlSeconds, now());
    return reply.status(201).send({ token: session.token, expiresAt: session.expiresAt.toISOString(), handle: displayHandle(wallet.handle), mode: wallet.mode });
  });

  app.delete('/api/wallet/sessions/current', {
    config: { auth: ['wallet'] },
    schema: { tags: ['wallet'], summary: 'Sign out: the token stops working', response: { 200: Type.Object({ signedOut: Type.Boolean() }), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    await revokeWalletSession(db, principal.sessionHash, now());
    return { signedOut: true };
  });

  app.get('/api/wallet/balance', {
    config: { auth: ['wallet'] },
    schema: { tags: ['wallet'], summary: 'The signed-in wallet\'s balances', response: { 200: BalanceResponse, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    const wallet = await requireWallet(db, principal.handle, principal.mode);
    return balanceResponse(db, wallet, principal.mode);
  });

  app.get('/api/wallet/tier', {
    config: { auth: ['wallet'] },
    schema: {
      tags: ['wallet'],
      summary: 'The signed-in wallet\'s verification tier, its limits and what is left of them (docs/wallet-tiers.md)',
      description: `Each customer wallet has a tier (1 basic, 2 identity checked, 3 fully verified; an administrator changes it with PUT
/api/admin/wallets/{handle}/tier). Its limits, in the wallet's currency: the most it may hold after money comes in, and the most that
may come in and go out in any 24 hours. Money in: top-ups, agent cash-in, payments from other people's wallets; money out:
withdrawals, agent cash-out, payments to other people's wallets. Paying merchants does not count; refunds are never refused.
Over a limit those movements are refused (status 422) with the codes tier_balance_limit_exceeded, tier_daily_in_limit_exceeded or
tier_daily_out_limit_exceeded, and a sentence saying the limit and what is left.`,
      response: { 200: WalletTierRecord, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    const wallet = await findWalletById(db, principal.walletId);
    if (!wallet || !hasTier(wallet)) throw notFound('wallet_not_found', 'Wallet not found');
    return tierRecord(await tierStanding(context, db, wallet), wallet.tier_changed_at);
  });
}
