// Our payment id <-> Paystack's transfer `reference`, the idempotency key of POST /transfer; and
// our collection id <-> a mobile money charge's `reference` (POST /charge), the same mapping with
// another escape character (below).
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
//
// Charges (collections): a charge's reference allows "Only -, ., = and alphanumeric characters"
// (openapi.yaml ChargeCreate.reference, TransactionInitialize.reference), so no `_`. chargeKeyOf
// is the same mapping with `.` where keyOf writes `_` (X -> .x, _ -> .., : -> .-, other -> .nHEX,
// padding .0): `col_Ab3x` -> `col...ab3x.0.0.0` (the `_` is `..`, the `A` is `.a`). Fixed forever
// like keyOf. A charge reference always holds a `.` (every id of ours has a `_`
// prefix separator) and a transfer reference never does, so the two never collide and a webhook's
// reference says by itself whether it is a payout's or a collection's.

const KEY_LENGTH_MIN = 16;

/** The mapping of the header with `escape` as its escape character (`_` for transfers, `.` for charges). */
function encode(id: string, escape: '_' | '.'): string {
  let key = '';
  for (const char of id) {
    if (/^[a-z0-9-]$/.test(char)) key += char;
    else if (/^[A-Z]$/.test(char)) key += `${escape}${char.toLowerCase()}`;
    else if (char === '_') key += `${escape}${escape}`;
    else if (char === ':') key += `${escape}-`;
    else {
      const hex = char.codePointAt(0)!.toString(16);
      key += `${escape}${hex.length}${hex}`;
    }
  }
  while (key.length < KEY_LENGTH_MIN) key += `${escape}0`;
  return key;
}

function decode(key: string, escape: '_' | '.'): string | undefined {
  const alphabet = escape === '_' ? /^[a-z0-9_-]+$/ : /^[a-z0-9.-]+$/;
  if (!alphabet.test(key)) return undefined;
  let id = '';
  let index = 0;
  while (index < key.length) {
    const char = key[index]!;
    if (char !== escape) {
      id += char;
      index += 1;
      continue;
    }
    const next = key[index + 1];
    if (next === undefined) return undefined;
    if (/^[a-z]$/.test(next)) id += next.toUpperCase();
    else if (next === escape) id += '_';
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
  return id !== '' && encode(id, escape) === key ? id : undefined;
}

/** A payout's transfer reference. */
export function keyOf(id: string): string {
  return encode(id, '_');
}

export function idOf(key: string): string | undefined {
  return decode(key, '_');
}

/** A collection's charge reference. */
export function chargeKeyOf(id: string): string {
  return encode(id, '.');
}

export function chargeIdOf(key: string): string | undefined {
  return decode(key, '.');
}
