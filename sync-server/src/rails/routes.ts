// The providers' callbacks: POST or PUT /api/rails/<provider>/<path>. Public (providers carry no
// Tapline key): each adapter verifies its own (a signature, a shared hash, or the unguessable
// token in a per-request path, confirmed by a status query), and a verdict is applied like a
// poll's answer, idempotently. Answered fast and never 500: a database fault is a 503 the
// provider retries.
import { JSON_DEPTH_MAX } from '@tapline/shared/limits';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { isDatabaseUnavailable } from '../db/database.ts';
import { bodyTooDeep, jsonDeeperThan } from '../http/json-body.ts';
import type { TypedApp } from '../http/typed-app.ts';
import { recordRailCallback } from '../metrics/registry.ts';
import { RAIL_PROVIDERS, type RailProviderName } from './types.ts';

const CALLBACK_PATH_MAX = 512;

function lowerCaseHeaders(request: FastifyRequest): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

export async function railCallbackRoutes(app: TypedApp, context: AppContext): Promise<void> {
  // Signatures are over the exact bytes sent: this scope reads every body as raw bytes.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // A JSON body nested past the API's limit is refused here as on every route, before an adapter parses it.
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
      const json = /json/i.test(String(request.headers['content-type'] ?? ''));
      if (json && jsonDeeperThan((body as Buffer).toString('utf8'), JSON_DEPTH_MAX)) return done(bodyTooDeep(), undefined);
      return done(null, body);
    });

    const handler = async (request: FastifyRequest<{ Params: { provider: string } }>, reply: FastifyReply) => {
      const name = request.params.provider;
      const adapter = (RAIL_PROVIDERS as readonly string[]).includes(name) ? context.rails.adapters.get(name as RailProviderName) : undefined;
      if (!adapter) {
        recordRailCallback(RAIL_PROVIDERS.includes(name as RailProviderName) ? name : 'unknown', 'refused');
        return reply.status(404).send({ error: `No payment provider ${JSON.stringify(name.slice(0, 40))} is configured on this server`, code: 'rail_provider_not_configured' });
      }
      // What the adapter reads: the path after /api/rails/<provider>/, as sent.
      const path = (request.url.split('?')[0] ?? '').slice(`/api/rails/${name}/`.length);
      if (path.length > CALLBACK_PATH_MAX) {
        recordRailCallback(name, 'refused');
        return reply.status(401).send({ error: 'The callback was not verified', code: 'callback_refused' });
      }
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let outcome: Awaited<ReturnType<typeof adapter.callback>>;
      try {
        outcome = await adapter.callback({ path, method: request.method, headers: lowerCaseHeaders(request), rawBody });
      } catch (error) {
        // An adapter must not throw; if one does, the provider is asked to send it again.
        request.log.error({ err: error, provider: name }, 'rail callback: the adapter failed');
        recordRailCallback(name, 'error');
        return reply.status(503).send({ error: 'The callback could not be handled now; send it again', code: 'callback_unavailable' });
      }
      const { verdict, reply: answer } = outcome;
      if (verdict.kind === 'refused') {
        request.log.warn({ provider: name, reason: verdict.reason }, 'rail callback refused');
        recordRailCallback(name, 'refused');
        return reply.status(401).send({ error: 'The callback was not verified', code: 'callback_refused' });
      }
      if (verdict.kind === 'payout') {
        try {
          const applied = await context.payments.applyCallback(verdict.paymentId, name, verdict.update);
          if (applied === 'unknown_payment') request.log.warn({ provider: name, paymentId: verdict.paymentId }, 'rail callback for a payment this server did not send through that provider');
          recordRailCallback(name, applied);
        } catch (error) {
          request.log.error({ err: error, provider: name }, 'rail callback: not applied');
          recordRailCallback(name, 'error');
          const code = isDatabaseUnavailable(error) ? 'database_unavailable' : 'callback_unavailable';
          return reply.status(503).send({ error: 'The callback could not be recorded now; send it again', code });
        }
      } else if (verdict.kind === 'collection') {
        // A till's mobile-money collection (modules/collections): applied like a poll's answer, idempotently.
        try {
          const applied = await context.collections.applyCallback(verdict.collectionId, name, verdict.update);
          if (applied === 'unknown_collection') request.log.warn({ provider: name, collectionId: verdict.collectionId }, 'rail callback for a collection this server did not ask that provider for');
          recordRailCallback(name, `collection_${applied}`);
        } catch (error) {
          request.log.error({ err: error, provider: name }, 'rail callback: collection not applied');
          recordRailCallback(name, 'error');
          const code = isDatabaseUnavailable(error) ? 'database_unavailable' : 'callback_unavailable';
          return reply.status(503).send({ error: 'The callback could not be recorded now; send it again', code });
        }
      } else if (verdict.kind === 'bank_transfer') {
        // A bank transfer into a wallet's virtual account (modules/wallet-money): credited once under its reference.
        try {
          const applied = await context.bankTransfers.credit(name, verdict.transfer);
          if (applied === 'unknown_account') request.log.warn({ provider: name, reference: verdict.transfer.providerReference }, 'rail callback: a bank transfer into an account that is no wallet\'s here, kept for an operator (GET /api/admin/bank-transfers/unmatched)');
          recordRailCallback(name, `bank_transfer_${applied}`);
        } catch (error) {
          request.log.error({ err: error, provider: name }, 'rail callback: bank transfer not credited');
          recordRailCallback(name, 'error');
          const code = isDatabaseUnavailable(error) ? 'database_unavailable' : 'callback_unavailable';
          return reply.status(503).send({ error: 'The callback could not be recorded now; send it again', code });
        }
      } else {
        recordRailCallback(name, 'ignored');
      }
      return reply.status(answer.status).send(answer.body ?? '');
    };

    const provider = Type.String({ description: `One of ${RAIL_PROVIDERS.join(', ')}` });
    const perRequest = Type.String({ description: 'Our payment or collection id the address was made for' });
    const token = Type.String({ description: 'The unguessable token made for this request alone' });
    const description = `Public; never called by merchants. The provider's own verification: Paystack's x-paystack-signature
(HMAC-SHA512 of the raw body), Flutterwave's verif-hash; Safaricom Daraja and MTN MoMo sign nothing, so each request
gets its own address with an unguessable token, and what it reports is confirmed with the provider's status query
before money moves. Idempotent: a duplicate changes nothing, in any order with polls. Answers what the provider
expects (Daraja: {"ResultCode":0,"ResultDesc":"Accepted"}); 401 callback_refused when not verified (counted in
tapline_rail_callbacks_total); 404 rail_provider_not_configured; 503 when it cannot be recorded now (the provider
sends it again).`;
    const routes: { method: 'POST' | 'PUT'; url: string; summary: string; params: Record<string, ReturnType<typeof Type.String>> }[] = [
      { method: 'POST', url: '/api/rails/:provider/webhook', summary: 'A signed provider webhook (Paystack, Flutterwave)', params: { provider } },
      { method: 'POST', url: '/api/rails/:provider/:kind/:id/:token', summary: 'A per-request result (Daraja STK push, MoMo)', params: { provider, kind: Type.String({ description: 'What the result is of (stk, disbursement, collection...)' }), id: perRequest, token } },
      { method: 'PUT', url: '/api/rails/:provider/:kind/:id/:token', summary: 'A per-request result sent by PUT (MTN MoMo)', params: { provider, kind: Type.String({ description: 'disbursement or collection' }), id: perRequest, token } },
      { method: 'POST', url: '/api/rails/:provider/:kind/:outcome/:id/:token', summary: 'A per-request result or time-out (Daraja B2C, transaction status, reversal)', params: { provider, kind: Type.String({ description: 'b2c, status or reversal' }), outcome: Type.String({ description: 'result or timeout' }), id: perRequest, token } },
    ];
    for (const route of routes) {
      scope.route({ method: route.method, url: route.url, schema: { tags: ['rails'], summary: route.summary, description, params: Type.Object(route.params) }, handler });
    }
  });
}
