import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

/** 32 random bytes as lower-case hex: the body of every key and token we issue. */
export function randomHex(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

export { newId } from '../db/ids.ts';

/** Secrets are stored only as SHA-256: they carry 256 bits of entropy, so no slow KDF is needed. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    // Compare anyway so the time taken does not reveal where the lengths differ.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export type Mode = 'test' | 'live';

const MERCHANT_KEY = /^mk_(test|live)_([0-9a-f]{64})$/;

export function newMerchantKey(mode: Mode): string {
  return `mk_${mode}_${randomHex(32)}`;
}

/** The mode a merchant key selects, or undefined when it is not a well-formed key. */
export function merchantKeyMode(key: string): Mode | undefined {
  return MERCHANT_KEY.exec(key)?.[1] as Mode | undefined;
}

const PUBLISHABLE_KEY = /^pk_(test|live)_([0-9a-f]{32})$/;

/** A browser-safe publishable key: `pk_test_` or `pk_live_` + 32 lower-case hex (16 random bytes). */
export function newPublishableKey(mode: Mode): string {
  return `pk_${mode}_${randomHex(16)}`;
}

/** The mode a publishable key selects, or undefined when it is not a well-formed one. */
export function publishableKeyMode(key: string): Mode | undefined {
  return PUBLISHABLE_KEY.exec(key)?.[1] as Mode | undefined;
}

/** PIN hashing parameters: scrypt N=2^14, r=8, p=1 (about 16 MiB and tens of milliseconds). */
const PIN_KDF = { N: 16_384, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 };

export async function hashPin(pin: string): Promise<string> {
  const salt = randomBytes(16);
  const derived = await scrypt(pin, salt, PIN_KDF.keyLength, { N: PIN_KDF.N, r: PIN_KDF.r, p: PIN_KDF.p, maxmem: PIN_KDF.maxmem });
  return `scrypt$${PIN_KDF.N}$${PIN_KDF.r}$${PIN_KDF.p}$${salt.toString('base64')}$${derived.toString('base64')}`;
}

export async function verifyPin(pin: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64');
  const derived = await scrypt(pin, Buffer.from(saltText, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PIN_KDF.maxmem,
  });
  return timingSafeEqual(derived, expected);
}
