import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the CSPRNG a page at a time and handed out 16 at a time: one
 * randomFillSync per 256 ids instead of one per id (a POS tap makes three; the per-call cost
 * showed in the server's CPU profile under bench:pos). Each byte is handed out once, as
 * crypto.randomUUID() does with its own cache.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

function random16(): Buffer {
  if (offset + 16 > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 16);
  offset += 16;
  return bytes;
}

/**
 * Opaque identifiers with a type prefix (`mer_`, `wal_`, `evt_`...): 16 random bytes, URL-safe.
 * Here, at the bottom layer, because the ledger's functions take ids their callers make (pos_tap
 * writes a callback event) and every layer above makes rows.
 */
export function newId(prefix: string): string {
  return `${prefix}_${random16().toString('base64url')}`;
}
