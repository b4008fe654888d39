import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { type VoucherClaims, encodeVoucher, voucherSignedPart } from '@tapline/shared/offline-qr';
import type { OfflineQrKey } from '@tapline/shared/sync-protocol';
import type { Queryable } from '../../db/database.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import { randomHex } from '../../auth/secrets.ts';

/**
 * The Ed25519 keys that sign offline QR vouchers. Terminals receive the public keys in every sync
 * hello and verify vouchers with them while offline. One key signs at a time (the newest that is
 * not retired); retired keys stay listed while vouchers they signed may still settle.
 */
export interface OfflineQrSigner {
  keyId: string;
  sign(claims: Omit<VoucherClaims, 'k'>): string;
}

interface KeyRow {
  id: string;
  private_key_sealed: string;
}

function signerOf(secrets: SecretBox, key: KeyRow): OfflineQrSigner {
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
  const [row] = await db.query<KeyRow>('SELECT id, private_key_sealed FROM offline_qr_keys WHERE retired_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1');
  if (row) return signerOf(secrets, row);
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicRaw = publicKey.export({ format: 'jwk' }).x;
  if (!publicRaw) throw new Error('Ed25519 key export gave no public key');
  const sealed = secrets.seal(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  // Two instances starting at once may both make a key: both are valid, the newest signs.
  const [created] = await db.query<KeyRow>(
    'INSERT INTO offline_qr_keys (id, public_key, private_key_sealed, created_at) VALUES ($1, $2, $3, $4) RETURNING id, private_key_sealed',
    [`oqk_${randomHex(8)}`, publicRaw, sealed, now],
  );
  return signerOf(secrets, created!);
}

/** The signer of one key, retired or not: signing the same claims again gives the same text (Ed25519 is deterministic). */
export async function signerForKey(db: Queryable, secrets: SecretBox, keyId: string): Promise<OfflineQrSigner> {
  const [row] = await db.query<KeyRow>('SELECT id, private_key_sealed FROM offline_qr_keys WHERE id = $1', [keyId]);
  if (!row) throw new Error(`offline QR key ${keyId} is missing`);
  return signerOf(secrets, row);
}

/** Every key a voucher may still be signed with, for terminals and for settlement. */
export async function publicKeys(db: Queryable): Promise<OfflineQrKey[]> {
  const rows = await db.query<{ id: string; public_key: string }>('SELECT id, public_key FROM offline_qr_keys ORDER BY created_at, id');
  return rows.map((row) => ({ keyId: row.id, algorithm: 'Ed25519' as const, publicKey: row.public_key }));
}

export async function publicKeyMap(db: Queryable): Promise<Map<string, string>> {
  return new Map((await publicKeys(db)).map((key) => [key.keyId, key.publicKey]));
}
