// Our ids (pay_..., collection ids) and MoMo's X-Reference-Id.
//
// MoMo's idempotency key is the `X-Reference-Id` of the POST, "a UUID v4" that becomes the id of
// the created resource (api-description.md, POST and GET; a reused one is a 409 "Duplicated
// Reference Id", common-error-codes.md). Our ids are longer than the 122 free bits of a UUID v4
// (`pay_` + 40 hex digits is 160 bits), so no UUID can carry them and the key cannot be reversed by
// arithmetic. The scheme:
//
//   keyOf(id) = the first 16 bytes of SHA-256(UTF-8 id), with the version nibble set to 4 and the
//               variant bits to 10 (RFC 9562), written as a lower-case 8-4-4-4-12 UUID.
//
// The same id always gives the same key (a repeated submit is a 409, never a second transfer), and
// 122 bits of SHA-256 make a collision between two ids a non-event. Our id itself travels in the
// request body's `externalId` (documents silent on its limits; our ids are at most ~50 characters
// of letters, digits, `_`, `-` and `:`), comes back in every status answer and callback body, and
// sits in the callback URL's path. idOf(key) answers from a book of the keys this process has
// derived (keyOf) or seen next to their externalId in a status answer, each checked by
// recomputing keyOf; a key it has never met answers undefined. Nothing in the server needs idOf
// to cross a restart: callbacks carry the id in their path and polls start from our id.
import { createHash } from 'node:crypto';

export function referenceIdOf(id: string): string {
  const bytes = createHash('sha256').update(id, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A bounded memory of key -> id (the oldest entries leave first). */
export class KeyBook {
  private readonly ids = new Map<string, string>();
  constructor(private readonly limit = 50_000) {}

  keyOf(id: string): string {
    const key = referenceIdOf(id);
    this.remember(key, id);
    return key;
  }

  /** Records an id seen with a key (e.g. a status answer's externalId) when it really derives that key. */
  learn(key: string, id: unknown): void {
    if (typeof id === 'string' && id !== '' && referenceIdOf(id) === key) this.remember(key, id);
  }

  idOf(key: string): string | undefined {
    return this.ids.get(key.toLowerCase());
  }

  private remember(key: string, id: string): void {
    this.ids.delete(key);
    this.ids.set(key, id);
    if (this.ids.size > this.limit) {
      const oldest = this.ids.keys().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
}
