import { buildTapUrl, isTagId, parseTapUrl } from '@tapline/shared/ndef';
import type { Queryable } from '../../db/database.ts';
import { forbidden, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import type { Mode } from '../../auth/secrets.ts';
import { type WearableRow, countTap } from './store.ts';
import { noPinLimitsRecord } from './no-pin-limits.ts';

/**
 * A tag id as the API accepts it: `TG` and 8 hex digits in either case, or a whole tapUrl (what a
 * reader gets from the tag's NDEF URI record). Returns the canonical upper-case id, or undefined
 * when the input cannot name any tag (callers answer that as an unknown tag).
 */
export function normalizeTagId(input: string): string | undefined {
  const trimmed = input.trim();
  const fromUrl = trimmed.includes('/') ? parseTapUrl(trimmed)?.tagId : undefined;
  const candidate = (fromUrl ?? trimmed).toUpperCase();
  return isTagId(candidate) ? candidate : undefined;
}

/** Spec, "Wearable tag": where a tap sends the phone that read it. */
export function payRedirect(handle: string): string {
  return `/pay/${handle}?source=nfc`;
}

/** A tag as the API answers it; `holder` (its holder's own routes) adds what only the holder sees. */
export function wearableRecord(row: WearableRow, publicBaseUrl: string, holder?: { now: Date }) {
  return {
    tagId: row.tag_id,
    handle: displayHandle(row.handle),
    tagType: row.tag_type,
    displayName: row.display_name,
    status: row.status,
    tapUrl: buildTapUrl(publicBaseUrl, row.tag_id),
    redirectTo: payRedirect(row.handle),
    tapCount: row.tap_count,
    mode: row.mode,
    consent: row.consent,
    disabledBy: row.disabled_by,
    noPinLimits: noPinLimitsRecord(row, holder),
    linkedAt: row.linked_at.toISOString(),
    lastTappedAt: row.last_tapped_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function tagNotFound(tagId: string) {
  return notFound('tag_not_found', `No tag ${tagId}`);
}

export function tagDisabled(tagId: string) {
  return forbidden('tag_disabled', `Tag ${tagId} is disabled: it does not resolve and cannot pay`);
}

/**
 * The public resolve (GET /api/tap/<tagId> and the /tap/<tagId> page): counts the tap and answers
 * the handle and where to send the phone. Unknown 404, disabled 403 (counted neither).
 */
export async function resolveTag(db: Queryable, rawTagId: string, now: Date, mode?: Mode) {
  const tagId = normalizeTagId(rawTagId);
  if (!tagId) throw tagNotFound(rawTagId);
  const found = await countTap(db, tagId, mode, now);
  if (found.outcome === 'unknown') throw tagNotFound(tagId);
  if (found.outcome === 'disabled') throw tagDisabled(tagId);
  return {
    tagId,
    walletId: found.walletId,
    handle: found.handle,
    displayName: found.displayName,
    tagType: found.tagType,
    tapCount: found.tapCount,
    redirectTo: payRedirect(found.handle),
  };
}
