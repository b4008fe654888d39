/**
 * Till staff PINs checked on the kiosk itself, online and offline (docs/till.md, "PINs offline"):
 * the replica holds each member's PIN verifier (`pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`,
 * made by the server's tillPinVerifier), never the PIN. The PIN typed is derived with the same
 * PBKDF2-SHA256 through WebCrypto and compared with the stored hash.
 *
 * Wrong PINs are counted per member on this till and kept in localStorage (a reload does not reset
 * them): after PIN_TRIES wrong ones in a row the member cannot sign in (nor approve) here for
 * PIN_LOCK_MS. A right PIN resets the count.
 */

export const PIN_TRIES = 5;
export const PIN_LOCK_MS = 15 * 60_000;

export interface PinVerifier {
  iterations: number;
  salt: Uint8Array<ArrayBuffer>;
  hash: Uint8Array<ArrayBuffer>;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The parts of a verifier, or null when it is not one this kiosk can check (a malformed one matches nothing). */
export function parsePinVerifier(verifier: string): PinVerifier | null {
  const [scheme, rounds, salt, hash, ...rest] = verifier.split('$');
  const iterations = Number(rounds);
  if (scheme !== 'pbkdf2-sha256' || rest.length > 0 || !Number.isSafeInteger(iterations) || iterations < 1 || !salt || !hash) return null;
  const saltBytes = fromBase64(salt);
  const hashBytes = fromBase64(hash);
  if (saltBytes === null || hashBytes === null || saltBytes.length === 0 || hashBytes.length === 0) return null;
  return { iterations, salt: saltBytes, hash: hashBytes };
}

/** Same length and bytes, looking at every byte whatever differs first. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

/** Whether `pin` matches `verifier`: PBKDF2-SHA256 by WebCrypto (it takes a moment: 600,000 iterations). */
export async function checkTillPin(pin: string, verifier: string): Promise<boolean> {
  const parsed = parsePinVerifier(verifier);
  if (parsed === null) return false;
  const { subtle } = globalThis.crypto;
  const key = await subtle.importKey('raw', new TextEncoder().encode(pin), 'PBKDF2', false, ['deriveBits']);
  const bits = await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: parsed.salt, iterations: parsed.iterations }, key, parsed.hash.length * 8);
  return sameBytes(new Uint8Array(bits), parsed.hash);
}

/** The part of Storage the lock-out needs (localStorage on the kiosk, a Map in tests). */
export interface PinStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

interface MemberTries {
  /** Wrong PINs in a row since the last right one or the last lock. */
  failures: number;
  /** ISO time until which the member cannot sign in here. */
  lockedUntil: string | null;
}

export type PinCheck =
  | { ok: true }
  | { ok: false; reason: 'wrong'; triesLeft: number }
  | { ok: false; reason: 'locked'; lockedUntil: Date };

/** The count of wrong PINs per member on one till, kept over reloads. */
export class PinLockout {
  readonly #storage: PinStorage;
  readonly #key: string;

  constructor(storage: PinStorage, terminalId: string) {
    this.#storage = storage;
    this.#key = `tapline.tillPinTries.${terminalId}`;
  }

  #read(): Record<string, MemberTries> {
    try {
      const parsed = JSON.parse(this.#storage.getItem(this.#key) ?? '{}') as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, MemberTries>) : {};
    } catch {
      return {};
    }
  }

  #write(all: Record<string, MemberTries>): void {
    try {
      this.#storage.setItem(this.#key, JSON.stringify(all));
    } catch {
      // A kiosk without storage still counts within this page.
    }
  }

  /** Until when the member is locked out here, or null. */
  lockedUntil(staffId: string, now: Date): Date | null {
    const until = this.#read()[staffId]?.lockedUntil;
    if (!until) return null;
    const date = new Date(until);
    return date.getTime() > now.getTime() ? date : null;
  }

  /** Wrong PINs the member may still type before the lock. */
  triesLeft(staffId: string, now: Date): number {
    if (this.lockedUntil(staffId, now) !== null) return 0;
    return PIN_TRIES - (this.#read()[staffId]?.failures ?? 0);
  }

  failed(staffId: string, now: Date): PinCheck {
    const all = this.#read();
    const failures = (this.lockedUntil(staffId, now) === null ? (all[staffId]?.failures ?? 0) : 0) + 1;
    if (failures >= PIN_TRIES) {
      const lockedUntil = new Date(now.getTime() + PIN_LOCK_MS);
      all[staffId] = { failures: 0, lockedUntil: lockedUntil.toISOString() };
      this.#write(all);
      return { ok: false, reason: 'locked', lockedUntil };
    }
    all[staffId] = { failures, lockedUntil: null };
    this.#write(all);
    return { ok: false, reason: 'wrong', triesLeft: PIN_TRIES - failures };
  }

  succeeded(staffId: string): void {
    const all = this.#read();
    if (!(staffId in all)) return;
    delete all[staffId];
    this.#write(all);
  }
}

/**
 * A member's PIN checked against their verifier, under the lock-out: a locked member's PIN is not
 * even derived (nothing to learn by trying), a wrong one counts, a right one clears the count.
 */
export async function verifyStaffPin(
  staff: { id: string; pinVerifier: string },
  pin: string,
  lockout: PinLockout,
  now: () => Date = () => new Date(),
  check: (pin: string, verifier: string) => Promise<boolean> = checkTillPin,
): Promise<PinCheck> {
  const locked = lockout.lockedUntil(staff.id, now());
  if (locked !== null) return { ok: false, reason: 'locked', lockedUntil: locked };
  if (await check(pin, staff.pinVerifier)) {
    lockout.succeeded(staff.id);
    return { ok: true };
  }
  return lockout.failed(staff.id, now());
}
