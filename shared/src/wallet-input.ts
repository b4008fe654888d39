/**
 * The shapes of what a wallet holder types, one definition for the API's schemas, the server's
 * routes and the pages that check a form before sending it.
 */

/** An @handle: 3 to 30 of a-z, 0-9, _ and .; the @ is optional, any case (the service lower-cases it). */
export const HANDLE_PATTERN = /^@?[A-Za-z0-9_.]{3,30}$/;
/** A wallet PIN: 4 to 8 digits. */
export const PIN_PATTERN = /^[0-9]{4,8}$/;

export function isHandle(value: string): boolean {
  return HANDLE_PATTERN.test(value);
}

export function isPin(value: string): boolean {
  return PIN_PATTERN.test(value);
}
