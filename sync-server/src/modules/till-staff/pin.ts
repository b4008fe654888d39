import { pbkdf2 as pbkdf2Callback, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2 = promisify(pbkdf2Callback);

/**
 * A till PIN's verifier: PBKDF2-SHA256, because the kiosk must check it while offline and a
 * browser has PBKDF2 (WebCrypto) but not scrypt. 600,000 iterations (OWASP's figure for
 * PBKDF2-SHA256) make each guess cost about as much as the server's scrypt PINs.
 */
export const TILL_PIN_KDF = { iterations: 600_000, saltBytes: 16, keyBytes: 32 } as const;
export const TILL_PIN = /^[0-9]{4,8}$/;

export async function tillPinVerifier(pin: string, iterations: number = TILL_PIN_KDF.iterations): Promise<string> {
  const salt = randomBytes(TILL_PIN_KDF.saltBytes);
  const hash = await pbkdf2(pin, salt, iterations, TILL_PIN_KDF.keyBytes, 'sha256');
  return `pbkdf2-sha256$${iterations}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether `pin` matches `verifier` (a malformed verifier matches nothing). */
export async function checkTillPin(pin: string, verifier: string): Promise<boolean> {
  const [scheme, rounds, salt, hash] = verifier.split('$');
  const iterations = Number(rounds);
  if (scheme !== 'pbkdf2-sha256' || !Number.isSafeInteger(iterations) || iterations < 1 || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const derived = await pbkdf2(pin, Buffer.from(salt, 'base64'), iterations, expected.length, 'sha256');
  return timingSafeEqual(derived, expected);
}
