import { randomBytes } from 'node:crypto';

/**
 * Opaque identifiers with a type prefix (`mer_`, `wal_`, `evt_`...): 16 random bytes, URL-safe.
 * Here, at the bottom layer, because the ledger's functions take ids their callers make (pos_tap
 * writes a callback event) and every layer above makes rows.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}
