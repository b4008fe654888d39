import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed-app.ts';
import {
  BalanceResponse,
  CreateTerminalBody,
  CreateTerminalResponse,
  ErrorBody,
  ListOf,
  ListQuery,
  MerchantSettingsBody,
  MerchantSettingsResponse,
  RotateKeyBody,
  RotateKeyResponse,
  TerminalRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { forbidden } from '../../http/errors.ts';
import type { TerminalRow } from '../terminals/index.ts';
import { merchantService } from './service.ts';

const merchantOnly = { auth: ['merchant'] } as const;
/** Keys are the owner's: a dashboard session of another role is refused (auth/dashboard-session.ts). */
const ownerOnly = { auth: ['merchant'], roles: ['owner'] } as const;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

function terminalRecord(row: TerminalRow, connected: ReadonlySet<string>) {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastSeenAt: row.last_seen_at?.toISOString() ?? null,
    language: row.language,
    queuedCount: row.queued_count,
    queuedReportedAt: row.queued_reported_at?.toISOString() ?? null,
    connected: row.revoked_at === null && connected.has(row.id),
    pairingCodeExpiresAt: row.pairing_expires_at?.toISOString() ?? null,
  };
}

/** The merchant's own account: key rotation, webhook settings, balance, kiosk terminals. */
export async function merchantRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = merchantService(context);

  app.post('/api/merchant/keys/rotate', {
    config: ownerOnly,
    schema: {
      tags: ['merchant'],
      summary: 'Replace the calling key; it keeps working for graceHours (0..24)',
      body: Type.Optional(RotateKeyBody),
      response: { 200: RotateKeyResponse, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    if (principal.session) throw forbidden('session_has_no_key', 'A dashboard session has no calling key: rotate a key by its id (POST /api/merchant/keys/{id}/rotate)');
    // No body is {} (http/input-guard.ts): the old key stops at once.
    const graceHours = request.body.graceHours ?? 0;
    const rotated = await service.rotateKey(principal, graceHours);
    return { key: rotated.key, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() };
  });

  app.patch('/api/merchant/settings', {
    config: merchantOnly,
    schema: { tags: ['merchant'], summary: 'Set the webhook URL or rotate the webhook secret', body: MerchantSettingsBody, response: { 200: MerchantSettingsResponse, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const body = request.body;
    if (body.rotateWebhookSecret === true && principal.session && principal.session.role !== 'owner') {
      throw forbidden('role_forbidden', 'Only an owner can rotate the webhook secret');
    }
    return service.updateSettings(principal, body);
  });

  app.get('/api/merchant/balance', {
    config: merchantOnly,
    schema: { tags: ['merchant'], summary: 'The merchant wallet\'s balances in the key\'s mode', response: { 200: BalanceResponse, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    return service.balance(principal.handle, principal.mode);
  });

  app.post('/api/merchant/terminals', {
    config: merchantOnly,
    schema: {
      tags: ['merchant'],
      summary: 'Register a kiosk terminal: its token (shown once) and a pairing code for the kiosk (10 minutes, single use)',
      body: CreateTerminalBody,
      response: { 201: CreateTerminalResponse, ...errors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const { name, language } = request.body;
    const created = await service.addTerminal(principal, name, language);
    return reply.status(201).send({
      id: created.row.id,
      token: created.token,
      name: created.row.name,
      mode: created.row.mode,
      createdAt: created.row.created_at.toISOString(),
      language: created.row.language,
      ...created.pairing,
    });
  });

  app.get('/api/merchant/terminals', {
    config: merchantOnly,
    schema: { tags: ['merchant'], summary: 'List terminals', querystring: ListQuery, response: { 200: ListOf(TerminalRecord), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0 } = request.query;
    const page = await service.terminalPage(principal, limit, offset);
    return { data: page.rows.map((row) => terminalRecord(row, page.connected)), total: page.total, limit, offset };
  });

  app.delete('/api/merchant/terminals/:id', {
    config: merchantOnly,
    schema: { tags: ['merchant'], summary: 'Revoke a terminal: its token stops working at once', params: Type.Object({ id: Type.String() }), response: { 200: TerminalRecord, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const row = await service.revokeMerchantTerminal(principal, request.params.id);
    // A revoked terminal counts as not connected: its connections are cut off at their next sync message.
    return terminalRecord(row, new Set());
  });
}
