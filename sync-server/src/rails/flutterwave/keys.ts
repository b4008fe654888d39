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

const PREFIX = 'tpl_';
const MAX_REFERENCE = 100;

export function keyOf(id: string): string {
  let key = PREFIX;
  for (const ch of id) {
    if (/^[a-z0-9_]$/.test(ch)) key += ch;
    else if (/^[A-Z]$/.test(ch)) key += `-${ch.toLowerCase()}`;
    else if (ch === '-') key += '--';
    else if (ch === ':') key += '-0';
    else throw new Error(`id ${JSON.stringify(id)} has a character a Flutterwave reference cannot carry`);
  }
  if (key.length > MAX_REFERENCE) throw new Error(`id ${JSON.stringify(id)} is too long for a Flutterwave reference (at most ${MAX_REFERENCE} characters)`);
  return key;
}

export function idOf(key: string): string | undefined {
  if (typeof key !== 'string' || !key.startsWith(PREFIX) || key.length > MAX_REFERENCE) return undefined;
  let id = '';
  for (let i = PREFIX.length; i < key.length; i += 1) {
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
