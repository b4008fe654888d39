/**
 * Gift-card codes made where the card is sold (CONTRACT.md: `gc_` + 64 lower-case hex, 256
 * bits). The server makes them for cards issued through the API; a kiosk terminal makes them for
 * cards it sells, possibly offline, and sends only the SHA-256. Browser-safe: WebCrypto only.
 */
export const GIFT_CARD_CODE = /^gc_[0-9a-f]{64}$/;
export const GIFT_CARD_CODE_HASH = /^[0-9a-f]{64}$/;

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function makeGiftCardCode(): string {
  return `gc_${hex(globalThis.crypto.getRandomValues(new Uint8Array(32)))}`;
}

export async function giftCardCodeHash(code: string): Promise<string> {
  return hex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(code))));
}

/** The first 10 characters: `gc_` and 7 hex. */
export function giftCardCodePrefix(code: string): string {
  return code.slice(0, 10);
}
