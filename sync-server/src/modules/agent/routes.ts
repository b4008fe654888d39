import type { TypedApp } from '../../http/typed-app.ts';
import { AgentSessionBody, BalanceResponse, ErrorBody, SessionResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { constantTimeEqual, sha256Hex } from '../../auth/secrets.ts';
import { unauthorized } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { agentCashRoutes } from './cash-routes.ts';
import { cashOutCodeRoutes } from './cash-out-code-routes.ts';
import { agentFloatRoutes } from './float-routes.ts';
import { balanceResponse, findAgent, findWalletById, insertAgentSession, requireWallet } from '../wallets/index.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** Agents (cash-in points, resellers) sign in with their id and secret, then `Bearer agent.<token>`. */
export async function agentRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config, now } = context;
  await agentCashRoutes(app, context);
  await cashOutCodeRoutes(app, context);
  await agentFloatRoutes(app, context);
  app.post('/api/agent/sessions', {
    schema: { tags: ['agent'], summary: 'Sign in as an agent', body: AgentSessionBody, response: { 201: SessionResponse, ...errors } },
  }, async (request, reply) => {
    const body = request.body;
    const agent = await findAgent(db, body.agentId);
    const secretMatches = constantTimeEqual(sha256Hex(body.secret), agent?.secret_hash ?? sha256Hex('no agent'));
    if (!agent || agent.disabled || !secretMatches) throw unauthorized('invalid_agent_credentials', 'Unknown agent or wrong secret');
    const wallet = await findWalletById(db, agent.wallet_id);
    const session = await insertAgentSession(db, agent.id, agent.mode, config.sessionTtlSeconds, now());
    return reply.status(201).send({ token: session.token, expiresAt: session.expiresAt.toISOString(), handle: displayHandle(wallet?.handle ?? ''), mode: agent.mode });
  });

  app.get('/api/agent/balance', {
    config: { auth: ['agent'] },
    schema: { tags: ['agent'], summary: 'The agent wallet\'s balances', response: { 200: BalanceResponse, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'agent');
    const wallet = await requireWallet(db, principal.handle, principal.mode);
    return balanceResponse(db, wallet, principal.mode);
  });
}
