// Our ids (`pay_...`, `bill_...`: letters, digits, '_', '-', ':') as Flutterwave references, and back.
//
// A transfer's `reference` (and a bill's) is Flutterwave's idempotency key: the merchant's unique
// reference for the transfer, which the transfer list can be queried by. The SDK's schemas allow a
// trimmed string of at most 100 characters; the documents show references made of letters, digits,
// '-' and '_' and say nothing of case or of other characters. So a key uses only lowercase letters,
// digits, '_' and '-' (whatever Flutterwave does with case, two keys never collide):
//   key = "tpl_" + the id with each character mapped:
//     a-z 0-9 _  -> itself
//     A-Z        -> "-" + the lowercase letter
//     -          -> "--"
//     :          -> "-0"
// The mapping is injective and idOf reverses it; a key without the prefix or with a malformed
// escape is not ours (undefined).
//
// A collection's charge `tx_ref` (POST /v3/charges, GET /v3/transactions/verify_by_reference;
// the SDK's momoSchema: a trimmed string of at most 100 characters) is the same mapping under
// another prefix: chargeKeyOf(id) = "tplc_" + the mapped id, e.g. `col_Ab3` -> `tplc_col_-ab3`.
// Fixed forever like keyOf. "tplc_..." never starts with "tpl_", so a payout's reference and a
// collection's tx_ref never collide, and a webhook's reference says by itself which it names.
//
// A wallet's virtual account number (POST /v3/virtual-account-numbers, virtual-accounts.ts) is
// made under the tx_ref accountKeyOf(walletId, currency) = "tplv_" + the mapping of
// `<walletId>:<currency>`, e.g. `wal_Ab3` in NGN -> `tplv_wal_-ab3-0-n-g-n`. Fixed forever: the
// same wallet and currency give the same tx_ref on every attempt, and Flutterwave names the account
// by it in the charge.completed of every transfer into a static account. "tplv_" starts neither
// "tpl_" nor "tplc_", so the three kinds of reference never collide.

const PREFIX = 'tpl_';
const CHARGE_PREFIX = 'tplc_';
const ACCOUNT_PREFIX = 'tplv_';
const REFERENCE_LENGTH_MAX = 100;

export function keyOf(id: string): string {
  return encode(id, PREFIX);
}

export function idOf(key: string): string | undefined {
  return decode(key, PREFIX);
}

/** A collection's charge tx_ref. */
export function chargeKeyOf(id: string): string {
  return encode(id, CHARGE_PREFIX);
}

export function chargeIdOf(key: string): string | undefined {
  return decode(key, CHARGE_PREFIX);
}

/** A wallet's virtual account's tx_ref (one per wallet and currency). */
export function accountKeyOf(walletId: string, currency: string): string {
  return encode(`${walletId}:${currency.toUpperCase()}`, ACCOUNT_PREFIX);
}

/** The wallet and currency an account tx_ref was made for; undefined when it is not one of ours. */
export function accountIdOf(key: string): { walletId: string; currency: string } | undefined {
  const decoded = decode(key, ACCOUNT_PREFIX);
  const match = decoded === undefined ? null : /^(.+):([A-Z]{3})$/.exec(decoded);
  return match ? { walletId: match[1]!, currency: match[2]! } : undefined;
}

function encode(id: string, prefix: string): string {
  let key = prefix;
  for (const ch of id) {
    if (/^[a-z0-9_]$/.test(ch)) key += ch;
    else if (/^[A-Z]$/.test(ch)) key += `-${ch.toLowerCase()}`;
    else if (ch === '-') key += '--';
    else if (ch === ':') key += '-0';
    else throw new Error(`id ${JSON.stringify(id)} has a character a Flutterwave reference cannot carry`);
  }
  if (key.length > REFERENCE_LENGTH_MAX) throw new Error(`id ${JSON.stringify(id)} is too long for a Flutterwave reference (at most ${REFERENCE_LENGTH_MAX} characters)`);
  return key;
}

function decode(key: string, prefix: string): string | undefined {
  if (typeof key !== 'string' || !key.startsWith(prefix) || key.length > REFERENCE_LENGTH_MAX) return undefined;
  let id = '';
  for (let i = prefix.length; i < key.length; i += 1) {
    const ch = key[i]!;
    if (/^[a-z0-9_]$/.test(ch)) {
      id += ch;
      continue;
    }
    if (ch !== '-') return undefined;
    const next = key[i + 1];
    i += 1;
    if (next === '-') id += '-';
    else if (next === '0') id += ':';
    else if (next !== undefined && /^[a-z]$/.test(next)) id += next.toUpperCase();
    else return undefined;
  }
  return id.length > 0 ? id : undefined;
}
