// Mobile money at the till (docs/till.md): the cashier types the customer's number, the server
// asks their phone to pay (POST /api/pos/collections), and the till waits for the answer. What
// is pending is kept in localStorage per terminal, so a reload of the kiosk resumes the wait (or
// repeats the request with the same Idempotency-Key, which never prompts the phone twice); it is
// forgotten once the collection has ended.
import type { MessageKey } from '@tapline/shared/i18n';
import type { Answer } from '@tapline/shared/api';
import { PHONE_TYPED_LENGTH_MAX } from '@tapline/shared/limits';
import { type Api, isUnreachable } from './api.ts';

export type Collection = Answer<'GET', '/api/pos/collections/{id}'>;

/** The tender a completed collection pays: the split-tender flow records it on the till sale. */
export interface MobileMoneyTender {
  kind: 'mobile_money';
  amountMinor: number;
  reference: string;
  /** The phone that paid, masked as the server shows it: what a cancel says the money goes back to. */
  phone: string;
}

/** A request the till made, kept until it ends: the key repeats it, the id (once known) resumes the wait. */
export interface PendingCollection {
  key: string;
  amountMinor: number;
  currency: string;
  phone: string;
  id?: string;
}

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
const KEY_PREFIX = 'tapline.mobileMoney.';
/** How often the till asks while it waits. */
export const POLL_MS = 1500;

export const FINAL_COLLECTION_STATUSES: ReadonlySet<Collection['status']> = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** The kept request of this terminal for this amount, or null (another amount, or a value that is not one). */
export function loadPending(terminalId: string, amountMinor: number, currency: string, store: Store = localStorage): PendingCollection | null {
  const raw = store.getItem(KEY_PREFIX + terminalId);
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<PendingCollection>;
    if (typeof parsed.key !== 'string' || typeof parsed.phone !== 'string' || parsed.amountMinor !== amountMinor || parsed.currency !== currency) return null;
    return { key: parsed.key, amountMinor, currency, phone: parsed.phone, ...(typeof parsed.id === 'string' ? { id: parsed.id } : {}) };
  } catch {
    store.removeItem(KEY_PREFIX + terminalId);
    return null;
  }
}

export function savePending(terminalId: string, pending: PendingCollection, store: Store = localStorage): void {
  store.setItem(KEY_PREFIX + terminalId, JSON.stringify(pending));
}

export function forgetPending(terminalId: string, store: Store = localStorage): void {
  store.removeItem(KEY_PREFIX + terminalId);
}

/**
 * Asks the customer's phone to pay: kept first (so a reload repeats it with the same key), then
 * sent; the collection's id is kept with it once the server answers.
 */
export async function requestCollection(
  api: Pick<Api, 'createCollection'>,
  terminalId: string,
  request: { amountMinor: number; currency: string; phone: string; description?: string },
  key: string = crypto.randomUUID(),
  store: Store = localStorage,
): Promise<Collection> {
  const pending: PendingCollection = { key, amountMinor: request.amountMinor, currency: request.currency, phone: request.phone };
  savePending(terminalId, pending, store);
  const body = { amountMinor: request.amountMinor, currency: request.currency, phone: request.phone, ...(request.description ? { description: request.description } : {}) };
  try {
    const collection = await api.createCollection(body, key);
    if (FINAL_COLLECTION_STATUSES.has(collection.status)) forgetPending(terminalId, store);
    else savePending(terminalId, { ...pending, id: collection.id }, store);
    return collection;
  } catch (error) {
    // Refused (a 4xx): nothing is pending. Not reached: kept, so that Send again (or a reload) repeats it.
    if (!isUnreachable(error)) forgetPending(terminalId, store);
    throw error;
  }
}

/** Resumes a kept request after a reload: its state (by id), or the request repeated with its key. */
export async function resumeCollection(api: Pick<Api, 'createCollection' | 'collection'>, terminalId: string, pending: PendingCollection, store: Store = localStorage): Promise<Collection> {
  if (pending.id !== undefined) {
    const collection = await api.collection(pending.id);
    if (FINAL_COLLECTION_STATUSES.has(collection.status)) forgetPending(terminalId, store);
    return collection;
  }
  return requestCollection(api, terminalId, pending, pending.key, store);
}

/** Whole seconds until the collection expires, never below zero. */
export function secondsLeft(expiresAt: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 1000));
}

/** "1:05" for 65 seconds. */
export function clock(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export type PhoneKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '+' | 'back' | 'clear';

/** The number being typed, one key at a time: digits, a + only first, at most PHONE_TYPED_LENGTH_MAX characters. */
export function pressPhoneKey(entry: string, key: PhoneKey): string {
  if (key === 'clear') return '';
  if (key === 'back') return entry.slice(0, -1);
  if (key === '+') return entry === '' ? '+' : entry;
  if (entry.length >= PHONE_TYPED_LENGTH_MAX) return entry;
  return entry + key;
}

/** Enough digits to be worth sending (the server checks the number itself: 400 invalid_phone). */
export function phoneLooksComplete(entry: string): boolean {
  return (entry.match(/\d/g) ?? []).length >= 7;
}

/** The words for how a collection ended (or a code the server answered). */
export function failureKey(code: string | null | undefined): MessageKey {
  switch (code) {
    case 'declined':
    case 'insufficient_funds':
    case 'no_answer':
    case 'invalid_phone':
    case 'collection_unavailable':
    case 'cancelled':
      return `kiosk.mobileMoney.failure.${code}` as MessageKey;
    default:
      return 'kiosk.mobileMoney.failure.provider_error';
  }
}

/** Why a collection the till shows ended without paying: its failure code, or what its state says. */
export function endedCode(collection: Collection): string {
  if (collection.status === 'expired') return 'no_answer';
  if (collection.status === 'cancelled') return 'cancelled';
  return collection.failureCode ?? 'provider_error';
}

/** The tender a completed collection pays. */
export function tenderOf(collection: Collection): MobileMoneyTender {
  if (collection.status !== 'completed') throw new Error(`collection ${collection.id} is ${collection.status}, not completed`);
  return { kind: 'mobile_money', amountMinor: collection.amountMinor, reference: collection.id, phone: collection.phone };
}
