import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { type VoucherClaims, encodeVoucher, voucherSignedPart } from '@tapline/shared/offline-qr';
import type { OfflineQrKey } from '@tapline/shared/sync-protocol';
import type { Queryable } from '../../db/database.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import { randomHex } from '../../auth/secrets.ts';
import { type SigningKeyRow, findCurrentSigningKey, findSigningKey, insertSigningKey, listPublicKeys } from './store.ts';

/**
 * The Ed25519 keys that sign offline QR vouchers. Terminals receive the public keys in every sync
 * hello and verify vouchers with them while offline. One key signs at a time (the newest that is
 * not retired); retired keys stay listed while vouchers they signed may still settle.
 */
export interface OfflineQrSigner {
  keyId: string;
  sign(claims: Omit<VoucherClaims, 'k'>): string;
}

function signerOf(secrets: SecretBox, key: SigningKeyRow): OfflineQrSigner {
  const privateKey = createPrivateKey(secrets.open(key.private_key_sealed));
  return {
    keyId: key.id,
    sign(claims) {
      const signedPart = voucherSignedPart({ ...claims, k: key.id });
      return encodeVoucher(signedPart, new Uint8Array(sign(null, Buffer.from(signedPart, 'ascii'), privateKey)));
    },
  };
}

/** The key that signs new vouchers, made (and stored sealed) the first time one is needed. */
export async function currentSigner(db: Queryable, secrets: SecretBox, now: Date): Promise<OfflineQrSigner> {
  const row = await findCurrentSigningKey(db);
  if (row) return signerOf(secrets, row);
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicRaw = publicKey.export({ format: 'jwk' }).x;
  if (!publicRaw) throw new Error('Ed25519 key export gave no public key');
  const sealed = secrets.seal(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  // Two instances starting at once may both make a key: both are valid, the newest signs.
  const created = await insertSigningKey(db, { id: `oqk_${randomHex(8)}`, publicKey: publicRaw, privateKeySealed: sealed, createdAt: now });
  return signerOf(secrets, created);
}

/** The signer of one key, retired or not: signing the same claims again gives the same text (Ed25519 is deterministic). */
export async function signerForKey(db: Queryable, secrets: SecretBox, keyId: string): Promise<OfflineQrSigner> {
  const row = await findSigningKey(db, keyId);
  if (!row) throw new Error(`offline QR key ${keyId} is missing`);
  return signerOf(secrets, row);
}

/** Every key a voucher may still be signed with, for terminals and for settlement. */
export async function publicKeys(db: Queryable): Promise<OfflineQrKey[]> {
  const rows = await listPublicKeys(db);
  return rows.map((row) => ({ keyId: row.id, algorithm: 'Ed25519' as const, publicKey: row.public_key }));
}

export async function publicKeyMap(db: Queryable): Promise<Map<string, string>> {
  return new Map((await publicKeys(db)).map((key) => [key.keyId, key.publicKey]));
}
