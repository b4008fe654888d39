import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret for each start of the bridge: 32 random bytes, hex. */
export function newBridgeSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Compares a presented secret with the real one in constant time. Both are hashed first so
 * the comparison takes the same time whatever the presented length.
 */
export function secretMatches(presented: unknown, secret: string): boolean {
  if (typeof presented !== 'string' || presented.length > 1024) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const ipv4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ipv4)) return true;
  return address === '::1' || address === '0:0:0:0:0:0:0:1';
}

export type ConnectionVerdict = { accept: true } | { accept: false; status: 403; reason: string };

/**
 * Whether to accept a WebSocket upgrade: only from this machine, and, when allowed origins
 * are configured, only from those pages. The secret is checked afterwards, in the protocol.
 */
export function verifyConnection(remoteAddress: string | undefined, origin: string | undefined, allowedOrigins: readonly string[] | null): ConnectionVerdict {
  if (!isLoopbackAddress(remoteAddress)) return { accept: false, status: 403, reason: `connections from ${remoteAddress ?? 'unknown'} are refused; the bridge is loopback only` };
  if (allowedOrigins !== null && (origin === undefined || !allowedOrigins.includes(origin))) {
    return { accept: false, status: 403, reason: `origin ${origin ?? '(none)'} is not allowed` };
  }
  return { accept: true };
}
