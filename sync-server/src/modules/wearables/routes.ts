import type { TypedApp } from '../../http/typed-app.ts';
import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import {
  CreateWearableBody,
  ErrorBody,
  ListOf,
  TapResolveResponse,
  UpdateWearableBody,
  WearableListQuery,
  WearableRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Principal } from '../../auth/principal.ts';
import { principalOf } from '../../auth/hooks.ts';
import { forbidden } from '../../http/errors.ts';
import { canonicalHandle, displayHandle } from '../../http/validate.ts';
import { findWalletById, requireWallet } from '../wallets/index.ts';
import { type TagConsent, type WearableOwner, type WearableRow, findWearable, insertWearable, listWearables, restartTagMerchants, updateWearable } from './store.ts';
import { normalizeTagId, resolveTag, tagNotFound, wearableRecord } from './service.ts';
import { merchantLinkConsent } from './consent.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** Merchants register tags for their customers; wallet holders register and disable their own. */
const ownersOnly = { auth: ['merchant', 'wallet'] } as const;
const TagParams = Type.Object({ tagId: Type.String({ maxLength: ID_LENGTH_MAX }) });

type Owner = Extract<Principal, { kind: 'merchant' | 'wallet' }>;

function ownerOf(principal: Principal): Owner {
  if (principal.kind !== 'merchant' && principal.kind !== 'wallet') throw forbidden('credential_not_allowed', 'Wearables need a merchant API key or a wallet session token');
  return principal;
}

/** A merchant sees the tags it registered (in its key's mode); a holder sees every tag linked to their wallet. */
function owns(owner: Owner, row: WearableRow): boolean {
  return owner.kind === 'merchant' ? row.merchant_id === owner.merchantId && row.mode === owner.mode : row.wallet_id === owner.walletId;
}

function listOwner(owner: Owner): WearableOwner {
  return owner.kind === 'merchant' ? { merchantId: owner.merchantId, mode: owner.mode } : { walletId: owner.walletId };
}

/** Spec, "Tap wearables": register, resolve (public, counted), change; plus the owner's list. */
export async function wearableRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config } = context;

  async function ownedTag(owner: Owner, rawTagId: string): Promise<WearableRow> {
    const tagId = normalizeTagId(rawTagId);
    const row = tagId ? await findWearable(db, tagId) : undefined;
    // Another merchant's tag, or a tag of the other mode, is as unknown as one that never existed.
    if (!row || !owns(owner, row)) throw tagNotFound(tagId ?? rawTagId);
    return row;
  }

  app.post('/api/wearables', {
    config: ownersOnly,
    schema: {
      tags: ['wearables'],
      summary: 'Register an NFC tag linked to an @handle; answers tagId and the tapUrl to write to the tag',
      description:
        'A merchant key registers a tag for a wallet of its mode with the holder\'s consent: in live mode, a wallet that is not the ' +
        'merchant\'s own needs the holder\'s wallet PIN as holderPin (403 holder_consent_required without it, 403 wrong_pin, 429 ' +
        'pin_attempts_exceeded); test mode accepts the body without holderPin and checks it when given. A wallet session registers a tag ' +
        'for the holder\'s own handle (handle may be omitted; see also POST /api/wallet/wearables). The tag id (TG + 8 upper-case hex) is ' +
        'chosen by the service. A new tag has the default no-PIN limits of its wallet\'s currency.',
      body: CreateWearableBody,
      response: { 201: WearableRecord, ...errors },
    },
  }, async (request, reply) => {
    const owner = ownerOf(principalOf(request));
    const body = request.body;
    const handle = body.handle === undefined ? owner.handle : canonicalHandle(body.handle);
    if (owner.kind === 'wallet' && handle !== owner.handle) {
      throw forbidden('handle_not_yours', `A wallet holder registers tags for their own handle ${displayHandle(owner.handle)} only`);
    }
    const wallet = await requireWallet(db, handle, owner.mode);
    const consent: TagConsent = owner.kind === 'merchant' ? await merchantLinkConsent(db, owner, wallet, body.holderPin, context.now()) : 'holder_session';
    const row = await insertWearable(db, {
      mode: owner.mode,
      walletId: wallet.id,
      handle,
      tagType: body.tagType,
      displayName: body.displayName?.trim() || wallet.display_name || displayHandle(handle),
      merchantId: owner.kind === 'merchant' ? owner.merchantId : null,
      consent,
    });
    return reply.status(201).send(wearableRecord(row, config.publicBaseUrl));
  });

  app.get('/api/wearables', {
    config: ownersOnly,
    schema: {
      tags: ['wearables'],
      summary: 'List tags: a merchant\'s registrations in its key\'s mode, or every tag linked to the signed-in holder',
      querystring: WearableListQuery,
      response: { 200: ListOf(WearableRecord), ...errors },
    },
  }, async (request) => {
    const owner = ownerOf(principalOf(request));
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listWearables(db, listOwner(owner), { handle: query.handle === undefined ? undefined : canonicalHandle(query.handle), status: query.status }, limit, offset);
    return { data: page.rows.map((row) => wearableRecord(row, config.publicBaseUrl)), total: page.total, limit, offset };
  });

  app.get('/api/wearables/:tagId', {
    config: ownersOnly,
    schema: { tags: ['wearables'], summary: 'One of the caller\'s tags', params: TagParams, response: { 200: WearableRecord, ...errors } },
  }, async (request) => {
    const owner = ownerOf(principalOf(request));
    const row = await ownedTag(owner, request.params.tagId);
    return wearableRecord(row, config.publicBaseUrl);
  });

  app.put('/api/wearables/:tagId', {
    config: ownersOnly,
    schema: {
      tags: ['wearables'],
      summary: 'Change a tag: the handle it resolves to, its display name, or its status (active or disabled)',
      description:
        'Body {handle?, displayName?, status?: "active"|"disabled", holderPin?}. A disabled tag does not resolve (403) and cannot pay, at once. ' +
        'A merchant pointing a tag at another wallet needs that holder\'s consent as on registration (holderPin; live mode); so does ' +
        're-enabling a tag its holder disabled. The new holder starts with the default no-PIN limits. ' +
        'A wallet holder may rename, disable or re-enable any tag linked to their wallet (a lost ring), but not point it at another handle.',
      params: TagParams,
      body: UpdateWearableBody,
      response: { 200: WearableRecord, ...errors },
    },
  }, async (request) => {
    const owner = ownerOf(principalOf(request));
    const row = await ownedTag(owner, request.params.tagId);
    const body = request.body;
    let walletId: string | undefined;
    let handle: string | undefined;
    let consent: TagConsent | undefined;
    if (body.handle !== undefined) {
      handle = canonicalHandle(body.handle);
      if (owner.kind === 'wallet' && handle !== owner.handle) {
        throw forbidden('handle_not_yours', `A wallet holder cannot point a tag at another handle than ${displayHandle(owner.handle)}`);
      }
      const wallet = await requireWallet(db, handle, row.mode);
      if (wallet.id !== row.wallet_id && owner.kind === 'merchant') {
        consent = await merchantLinkConsent(db, owner, wallet, body.holderPin, context.now());
        walletId = wallet.id;
      }
    }
    // A ring its holder disabled (lost) is not the merchant's to turn back on without them.
    if (owner.kind === 'merchant' && walletId === undefined && body.status === 'active' && row.status === 'disabled' && row.disabled_by === 'holder') {
      const wallet = await findWalletById(db, row.wallet_id);
      if (!wallet) throw tagNotFound(row.tag_id);
      await merchantLinkConsent(db, owner, wallet, body.holderPin, context.now());
    }
    const now = context.now();
    const updated = await db.transaction(async (tx) => {
      const changed = await updateWearable(
        tx,
        row.tag_id,
        {
          walletId,
          handle: walletId === undefined ? undefined : handle,
          consent,
          displayName: body.displayName?.trim() || undefined,
          status: body.status,
          disabledBy: owner.kind === 'wallet' ? 'holder' : 'merchant',
        },
        now,
      );
      // Only a merchant points a tag at another wallet (with the new holder's consent).
      if (changed && walletId !== undefined && owner.kind === 'merchant' && consent !== undefined) {
        await restartTagMerchants(tx, row.tag_id, { merchantId: owner.merchantId, consent }, now);
      }
      return changed;
    });
    if (!updated) throw tagNotFound(row.tag_id);
    return wearableRecord(updated, config.publicBaseUrl);
  });

  app.get('/api/tap/:tagId', {
    schema: {
      tags: ['wearables'],
      summary: 'Public: resolve a tag to its handle and payment redirect; counts the tap',
      description: 'Unknown tag 404 tag_not_found; disabled tag 403 tag_disabled (neither is counted).',
      params: TagParams,
      response: { 200: TapResolveResponse, ...errors },
    },
  }, async (request) => {
    const resolved = await resolveTag(db, request.params.tagId, context.now());
    return {
      tagId: resolved.tagId,
      handle: displayHandle(resolved.handle),
      displayName: resolved.displayName,
      tagType: resolved.tagType,
      redirectTo: resolved.redirectTo,
      tapCount: resolved.tapCount,
    };
  });
}
