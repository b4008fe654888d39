import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { ApiKeyRecord, ErrorBody, ListOf, ListQuery, MerchantSettingsResponse, RotateKeyBody, RotateKeyResponse } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { credentialsChanged } from '../../auth/credential-cache.ts';
import { notFound, unprocessable } from '../../http/errors.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { type ApiKeyRow, findMerchant, listApiKeys, lockApiKey, rotateApiKey } from '../merchants/index.ts';

const ownerOnly = { auth: ['merchant'], roles: ['owner'] } as const;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });

function keyRecord(row: ApiKeyRow, now: Date) {
  return {
    id: row.id,
    mode: row.mode,
    prefix: row.key_prefix,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    active: row.expires_at === null || row.expires_at.getTime() > now.getTime(),
  };
}

/**
 * The merchant's secret API keys by id, for the dashboard (a session has no calling key to
 * rotate): list them and rotate one with a grace period. The owner only, or an API key.
 */
export async function merchantKeyRoutes(app: TypedApp, { db, now }: AppContext): Promise<void> {
  app.post('/api/merchant/webhooks/test', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['webhooks'],
      summary: 'Send a test event (webhook.test) to the webhook URL: it is delivered, retried and listed like any other',
      description: 'A merchant without a webhook URL answers 422 webhook_url_missing.',
      response: { 202: Type.Object({ eventId: Type.String() }), ...errors, 422: ErrorBody },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const event = await db.transaction(async (tx) => {
      const merchant = await findMerchant(tx, principal.merchantId);
      if (!merchant?.webhook_url) throw unprocessable('webhook_url_missing', 'Set a webhook URL first (PATCH /api/merchant/settings {webhookUrl})');
      return enqueueEvent(tx, { merchantId: principal.merchantId, mode: principal.mode, type: 'webhook.test', data: { message: 'A test event from your Tapline dashboard' }, at: now() });
    });
    return reply.status(202).send({ eventId: event.id });
  });


  app.get('/api/merchant/settings', {
    config: { auth: ['merchant'] },
    schema: { tags: ['merchant'], summary: 'The webhook URL (the secret is never shown again: rotate it for a new one)', response: { 200: MerchantSettingsResponse, ...errors } },
  }, async (request) => {
    const merchant = await findMerchant(db, principalAs(request, 'merchant').merchantId);
    if (!merchant) throw notFound('merchant_not_found', 'Merchant not found');
    return { webhookUrl: merchant.webhook_url };
  });

  app.get('/api/merchant/keys', {
    config: ownerOnly,
    schema: {
      tags: ['merchant'],
      summary: 'The secret API keys of the mode (never the keys themselves: their first 12 characters), newest first',
      querystring: ListQuery,
      response: { 200: ListOf(ApiKeyRecord), ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0 } = request.query;
    const { rows, total } = await listApiKeys(db, principal.merchantId, principal.mode, limit, offset);
    return { data: rows.map((row) => keyRecord(row, now())), total, limit, offset };
  });

  app.post('/api/merchant/keys/:id/rotate', {
    config: ownerOnly,
    schema: {
      tags: ['merchant'],
      summary: 'Replace one key: a new key (shown once); the old one keeps working for graceHours (0..24)',
      params: IdParams,
      body: Type.Optional(RotateKeyBody),
      response: { 200: RotateKeyResponse, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    // No body is {} (http/input-guard.ts): the old key stops at once.
    const graceHours = request.body.graceHours ?? 0;
    const rotated = await db.transaction(async (tx) => {
      const key = await lockApiKey(tx, id, principal.merchantId, principal.mode);
      if (!key || (key.expires_at && key.expires_at.getTime() <= now().getTime())) throw notFound('api_key_not_found', `No active ${principal.mode} API key ${id}`);
      return rotateApiKey(tx, key.id, principal.merchantId, principal.mode, graceHours, now());
    });
    credentialsChanged();
    return { key: rotated.key, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() };
  });
}
