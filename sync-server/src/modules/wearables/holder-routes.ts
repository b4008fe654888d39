import type { TypedApp } from '../../http/typed-app.ts';
import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { toMajor } from '@tapline/shared/money';
import {
  AddTagMerchantBody,
  ErrorBody,
  HolderUpdateWearableBody,
  HolderWearableListQuery,
  ListOf,
  ListQuery,
  RegisterOwnWearableBody,
  RemovedTagMerchant,
  TagActivity,
  TagMerchant,
  WearableRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { notFound } from '../../http/errors.ts';
import { canonicalHandle, displayHandle } from '../../http/validate.ts';
import { findMerchantByHandle } from '../merchants/index.ts';
import { requireWallet } from '../wallets/index.ts';
import {
  type TagActivityRow,
  type TagMerchantRow,
  type WearableRow,
  addTagMerchant,
  findWearable,
  insertWearable,
  listTagActivity,
  listTagMerchants,
  listWearables,
  removeTagMerchant,
  setNoPinLimits,
  updateWearable,
} from './store.ts';
import { normalizeTagId, tagNotFound, wearableRecord } from './service.ts';
import { holderNoPinLimit } from './no-pin-limits.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const holderOnly = { auth: ['wallet'] } as const;
const TagParams = Type.Object({ tagId: Type.String({ maxLength: ID_LENGTH_MAX }) });
const TagMerchantParams = Type.Object({ tagId: Type.String({ maxLength: ID_LENGTH_MAX }), handle: Type.String({ minLength: 1, maxLength: 64 }) });

function tagMerchantRecord(row: TagMerchantRow) {
  return { merchant: { handle: displayHandle(row.handle), name: row.name }, source: row.source, addedAt: row.created_at.toISOString() };
}

function activityRecord(row: TagActivityRow) {
  return {
    type: row.kind,
    id: row.id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    description: row.description,
    merchant: row.merchant_handle && row.merchant_name ? { handle: displayHandle(row.merchant_handle), name: row.merchant_name } : null,
    walletRef: row.wallet_ref,
    declineCode: row.decline_code,
    errorMessage: row.error_message,
    at: row.at.toISOString(),
  };
}

/**
 * The holder's own tags (/api/wallet/wearables*): register one to their wallet, list them, disable
 * a lost one and re-enable it, lower its no-PIN limits, and see every payment made with it.
 */
export async function holderWearableRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config } = context;

  /** A tag linked to the signed-in wallet; any other tag is as unknown as one that never existed. */
  async function holderTag(walletId: string, rawTagId: string): Promise<WearableRow> {
    const tagId = normalizeTagId(rawTagId);
    const row = tagId ? await findWearable(db, tagId) : undefined;
    if (!row || row.wallet_id !== walletId) throw tagNotFound(tagId ?? rawTagId);
    return row;
  }

  const record = (row: WearableRow) => wearableRecord(row, config.publicBaseUrl, { now: context.now() });

  app.post('/api/wallet/wearables', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'Register a tag to the signed-in wallet: the holder\'s own consent (answers tagId and the tapUrl to write to it)',
      body: RegisterOwnWearableBody,
      response: { 201: WearableRecord, ...errors },
    },
  }, async (request, reply) => {
    const holder = principalAs(request, 'wallet');
    const body = request.body;
    const wallet = await requireWallet(db, holder.handle, holder.mode);
    const row = await insertWearable(db, {
      mode: holder.mode,
      walletId: wallet.id,
      handle: holder.handle,
      tagType: body.tagType,
      displayName: body.displayName?.trim() || wallet.display_name || displayHandle(holder.handle),
      merchantId: null,
      consent: 'holder_session',
    });
    return reply.status(201).send(record(row));
  });

  app.get('/api/wallet/wearables', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'Every tag linked to the signed-in wallet, whoever registered it, with its no-PIN limits and what taps without the PIN took today',
      querystring: HolderWearableListQuery,
      response: { 200: ListOf(WearableRecord), ...errors },
    },
  }, async (request) => {
    const holder = principalAs(request, 'wallet');
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listWearables(db, { walletId: holder.walletId }, { status: query.status }, limit, offset);
    return { data: page.rows.map(record), total: page.total, limit, offset };
  });

  app.get('/api/wallet/wearables/:tagId', {
    config: holderOnly,
    schema: { tags: ['wallet'], summary: 'One of the signed-in wallet\'s tags', params: TagParams, response: { 200: WearableRecord, ...errors } },
  }, async (request) => {
    const holder = principalAs(request, 'wallet');
    return record(await holderTag(holder.walletId, request.params.tagId));
  });

  app.patch('/api/wallet/wearables/:tagId', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'Rename, disable or re-enable one of the holder\'s tags, or lower its no-PIN limits',
      description:
        'Body {displayName?, status?: "active"|"disabled", noPinLimits?: {perTap?, perDay?}}. A disabled tag stops resolving and paying at ' +
        'once (a lost ring), and only its holder (or a merchant with the holder\'s PIN) turns it back on. noPinLimits are major units of ' +
        'the wallet\'s currency from 0 (every tap needs the PIN) up to the default (422 no_pin_limit_above_default above it); null ' +
        'restores the default. A tap above a limit answers 403 pin_required and is repeated with the holder\'s PIN.',
      params: TagParams,
      body: HolderUpdateWearableBody,
      response: { 200: WearableRecord, ...errors },
    },
  }, async (request) => {
    const holder = principalAs(request, 'wallet');
    let row = await holderTag(holder.walletId, request.params.tagId);
    const body = request.body;
    const now = context.now();
    // Both limits are judged before either is written: a refused one changes nothing.
    const perTap = holderNoPinLimit(row, 'perTap', body.noPinLimits?.perTap);
    const perDay = holderNoPinLimit(row, 'perDay', body.noPinLimits?.perDay);
    if (body.displayName !== undefined || body.status !== undefined) {
      row = (await updateWearable(db, row.tag_id, { displayName: body.displayName?.trim() || undefined, status: body.status, disabledBy: 'holder' }, now)) ?? row;
    }
    if (perTap !== undefined || perDay !== undefined) row = (await setNoPinLimits(db, row.tag_id, { perTap, perDay }, now)) ?? row;
    return record(row);
  });

  app.get('/api/wallet/wearables/:tagId/activity', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'Every payment made with one of the holder\'s tags, newest first: POS sessions it paid (or failed to) and taps terminals took offline',
      description:
        'Since the tag was linked to this wallet. Offline taps include declined ones (a disabled ring someone tried, insufficient funds). ' +
        'A tap refused before it paid (403 pin_required, tag_disabled on a POS session) leaves the session pending and is not listed.',
      params: TagParams,
      querystring: ListQuery,
      response: { 200: ListOf(TagActivity), ...errors },
    },
  }, async (request) => {
    const holder = principalAs(request, 'wallet');
    const row = await holderTag(holder.walletId, request.params.tagId);
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listTagActivity(db, { tagId: row.tag_id, walletId: row.wallet_id, linkedAt: row.linked_at }, limit, offset);
    return { data: page.rows.map(activityRecord), total: page.total, limit, offset };
  });

  // Who may charge the tag without the holder's PIN (README, "Who may charge a tag without its PIN").
  app.get('/api/wallet/wearables/:tagId/merchants', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'The merchants that may charge one of the holder\'s tags without her PIN',
      description:
        'The merchant that registered the tag with the holder\'s consent (or in test mode), every merchant the holder has since paid by ' +
        'tapping the tag with her PIN, and those she added. A tap at any other merchant needs the PIN online (403 pin_required) and is ' +
        'declined pin_required offline. Within the list, taps without the PIN stay within the tag\'s no-PIN limits.',
      params: TagParams,
      querystring: ListQuery,
      response: { 200: ListOf(TagMerchant), ...errors },
    },
  }, async (request) => {
    const holder = principalAs(request, 'wallet');
    const row = await holderTag(holder.walletId, request.params.tagId);
    const limit = request.query.limit ?? 20;
    const offset = request.query.offset ?? 0;
    const page = await listTagMerchants(db, row.tag_id, limit, offset);
    return { data: page.rows.map(tagMerchantRecord), total: page.total, limit, offset };
  });

  app.post('/api/wallet/wearables/:tagId/merchants', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'Allow a merchant to charge one of the holder\'s tags without her PIN (within its no-PIN limits)',
      description: 'Body {handle}: the merchant\'s @handle. 201 with the entry; 200 with the entry already there. Unknown merchant: 404 merchant_not_found.',
      params: TagParams,
      body: AddTagMerchantBody,
      response: { 200: TagMerchant, 201: TagMerchant, ...errors },
    },
  }, async (request, reply) => {
    const holder = principalAs(request, 'wallet');
    const row = await holderTag(holder.walletId, request.params.tagId);
    const merchant = await merchantByHandle(request.body.handle);
    const added = await addTagMerchant(db, row.tag_id, merchant.id, 'holder', context.now());
    return reply.status(added.created ? 201 : 200).send(tagMerchantRecord(added.row));
  });

  app.delete('/api/wallet/wearables/:tagId/merchants/:handle', {
    config: holderOnly,
    schema: {
      tags: ['wallet'],
      summary: 'Withdraw a merchant\'s permission to charge one of the holder\'s tags without her PIN',
      description:
        'Its next tap needs the PIN again (and paying it with the tag and the PIN allows it again). 404 tag_merchant_not_found when the ' +
        'merchant was not allowed, merchant_not_found when no merchant has that handle.',
      params: TagMerchantParams,
      response: { 200: RemovedTagMerchant, ...errors },
    },
  }, async (request) => {
    const holder = principalAs(request, 'wallet');
    const row = await holderTag(holder.walletId, request.params.tagId);
    const merchant = await merchantByHandle(request.params.handle);
    if (!(await removeTagMerchant(db, row.tag_id, merchant.id))) {
      throw notFound('tag_merchant_not_found', `${displayHandle(merchant.handle)} may not charge tag ${row.tag_id} without the PIN`);
    }
    return { handle: displayHandle(merchant.handle), deleted: true as const };
  });

  async function merchantByHandle(raw: string) {
    const handle = canonicalHandle(raw);
    const merchant = await findMerchantByHandle(db, handle);
    if (!merchant) throw notFound('merchant_not_found', `No merchant ${displayHandle(handle)}`);
    return merchant;
  }
}
