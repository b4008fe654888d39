import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Secrets the server must use again, not just recognise: a merchant's webhook signing secret is
 * the HMAC key of every delivery, so it cannot be hashed like API keys and tokens. It is kept
 * sealed with AES-256-GCM under a key that is not in the database (SECRETS_KEY, or a key file
 * beside the embedded database), so a copy of the database alone does not let anyone sign
 * webhooks as Tapline.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** The plaintext of a sealed value; a value from before sealing (no prefix) is returned as it is. */
  open(stored: string): string;
}

const PREFIX = 'sealed.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_BYTES = 32;

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRETS_KEY_BYTES) throw new Error(`the secrets key must be ${SECRETS_KEY_BYTES} bytes`);
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    },
    open(stored) {
      if (!isSealed(stored)) return stored;
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      // A wrong key fails the tag check here (throws): a secret is never silently garbled.
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/** SECRETS_KEY: 64 hex characters or the base64 (or base64url) of 32 bytes. */
export function parseSecretsKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === SECRETS_KEY_BYTES) return key;
  }
  return undefined;
}

/**
 * The key kept in a file (hex, mode 0600), created with a random key the first time. The default
 * for a single server on its embedded database; several servers on one PostgreSQL must share
 * SECRETS_KEY instead.
 */
export function keyFromFile(path: string): Buffer {
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    const key = parseSecretsKey(text);
    if (!key) throw new Error(`${path} does not hold a secrets key (64 hex characters)`);
    return key;
  }
  const key = randomBytes(SECRETS_KEY_BYTES);
  mkdirSync(dirname(path), { recursive: true });
  // 'wx': two servers starting at once must not each write their own key.
  try {
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return keyFromFile(path);
    throw error;
  }
  chmodSync(path, 0o600);
  return key;
}
