// Our payment id <-> Paystack's transfer `reference`, the idempotency key of POST /transfer.
//
// Paystack's rule (openapi.yaml TransferBase.reference; api-errors.json "Your reference contains
// illegal special characters"): lowercase letters, digits, `-` and `_` only. The same schema says
// `minimum: 16` (meant as a minimum length); it names no maximum. Our ids (`pay_` + 40 lowercase
// hex) may also hold upper-case letters and `:`. The mapping, fixed forever since a key already at
// Paystack must still lead back to its payment:
//
//   a-z 0-9 -        themselves
//   A-Z              `_` + the letter in lower case      (X -> _x)
//   _                `__`
//   :                `_-`
//   any other char   `_` + n + its code point in n lower-case hex digits (n = 1..6; `.` -> _22e)
//   then, while shorter than 16 characters, `_0` (padding; idOf drops it)
//
// So `pay_3f9a...` becomes `pay__3f9a...` (45 characters for a 44-character id), readable in the
// Paystack dashboard. idOf reverses it and answers undefined for any reference keyOf would not
// have produced (another system's transfers on the same integration).

const MIN_LENGTH = 16;
const PAD = '_0';

export function keyOf(id: string): string {
  let key = '';
  for (const char of id) {
    if (/^[a-z0-9-]$/.test(char)) key += char;
    else if (/^[A-Z]$/.test(char)) key += `_${char.toLowerCase()}`;
    else if (char === '_') key += '__';
    else if (char === ':') key += '_-';
    else {
      const hex = char.codePointAt(0)!.toString(16);
      key += `_${hex.length}${hex}`;
    }
  }
  while (key.length < MIN_LENGTH) key += PAD;
  return key;
}

export function idOf(key: string): string | undefined {
  if (!/^[a-z0-9_-]+$/.test(key)) return undefined;
  let id = '';
  let index = 0;
  while (index < key.length) {
    const char = key[index]!;
    if (char !== '_') {
      id += char;
      index += 1;
      continue;
    }
    const next = key[index + 1];
    if (next === undefined) return undefined;
    if (/^[a-z]$/.test(next)) id += next.toUpperCase();
    else if (next === '_') id += '_';
    else if (next === '-') id += ':';
    else if (next === '0') {
      // padding
    } else if (/^[1-6]$/.test(next)) {
      const width = Number(next);
      const hex = key.slice(index + 2, index + 2 + width);
      if (hex.length !== width || !/^[0-9a-f]+$/.test(hex)) return undefined;
      const codePoint = parseInt(hex, 16);
      if (codePoint > 0x10ffff) return undefined;
      id += String.fromCodePoint(codePoint);
      index += width;
    } else return undefined;
    index += 2;
  }
  // Only the canonical spelling counts: every id has exactly one key.
  return id !== '' && keyOf(id) === key ? id : undefined;
}
