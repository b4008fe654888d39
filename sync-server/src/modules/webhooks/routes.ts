import type { TypedApp } from '../../http/typed-app.ts';
import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { ErrorBody, ListOf, WebhookDelivery, WebhookDeliveryQuery } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { type LoggedDelivery, webhookService } from './service.ts';

const merchantOnly = { auth: ['merchant'] } as const;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });

function deliveryRecord({ row, attempts }: LoggedDelivery) {
  return {
    id: row.id,
    eventId: row.event_id,
    event: row.type,
    mode: row.mode,
    url: row.url,
    signatureFormat: row.signature_format,
    state: row.state,
    attemptCount: row.attempts,
    nextAttemptAt: row.state === 'pending' || row.state === 'delivering' ? row.next_attempt_at.toISOString() : null,
    lastStatus: row.last_status,
    lastError: row.last_error,
    payload: row.body,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attemptedAt: attempt.attempted_at.toISOString(),
      status: attempt.status,
      error: attempt.error,
      durationMs: attempt.duration_ms,
    })),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const DESCRIPTION = `Every event is POSTed to the merchant's webhook URL (and POS events to the session's callbackUrl)
with header x-service-signature: the lower-case hex HMAC-SHA256 of the raw body under the merchant's current webhook
secret (sha256=<hex> for POS callbacks). A 2xx within 10 seconds succeeds; otherwise the delivery is retried after
1 min, 5 min, 30 min, 2 h and 24 h (6 attempts in all), then marked failed. Every attempt carries the same body and
event id: deduplicate on it.`;

/** Webhook deliveries of the merchant's events: list them with their attempts, redeliver one. */
export async function webhookRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = webhookService(context);

  app.get('/api/merchant/webhook-deliveries', {
    config: merchantOnly,
    schema: {
      tags: ['webhooks'],
      summary: 'List webhook deliveries with their attempts, newest first',
      description: DESCRIPTION,
      querystring: WebhookDeliveryQuery,
      response: { 200: ListOf(WebhookDelivery), ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await service.listLog(principal, { state: query.state, event: query.event, eventId: query.eventId }, limit, offset);
    return { data: page.deliveries.map(deliveryRecord), total: page.total, limit, offset };
  });

  app.get('/api/merchant/webhook-deliveries/:id', {
    config: merchantOnly,
    schema: { tags: ['webhooks'], summary: 'One webhook delivery with its attempts', params: IdParams, response: { 200: WebhookDelivery, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    return deliveryRecord(await service.delivery(principal, request.params.id));
  });

  app.post('/api/merchant/webhook-deliveries/:id/redeliver', {
    config: merchantOnly,
    schema: {
      tags: ['webhooks'],
      summary: 'Redeliver one event now: a new attempt, answered with the delivery after it',
      description: 'The attempt is made during the call (same body and event id, signed with the current secret). A delivery whose attempt is in flight answers 409 delivery_in_progress.',
      params: IdParams,
      response: { 200: WebhookDelivery, ...errors, 409: ErrorBody },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    return deliveryRecord(await service.redeliver(principal, request.params.id));
  });
}
