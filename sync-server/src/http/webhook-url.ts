import { isIP } from 'node:net';
import type { Mode } from '../ledger/accounts.ts';
import { badRequest } from './errors.ts';

function isPrivateIpv4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

function isPrivateIpv6(address: string): boolean {
  const lower = address.toLowerCase();
  if (lower === '::1' || lower === '::') return true;
  if (lower.startsWith('fe80:') || lower.startsWith('fc') || lower.startsWith('fd')) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped?.[1] !== undefined && isPrivateIpv4(mapped[1]);
}

/** True for loopback, private and link-local addresses (and names that mean them). */
export function isPrivateAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return isPrivateIpv4(bare);
  if (family === 6) return isPrivateIpv6(bare);
  const name = bare.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local') || name.endsWith('.internal');
}

/**
 * Validates a webhook or callback URL. Test mode may target any http(s) address (a developer's
 * localhost); live mode refuses private, loopback and link-local hosts (SSRF guard). Host names
 * are checked again at delivery time, after DNS resolution.
 */
export function validateWebhookUrl(raw: string, mode: Mode, field = 'webhookUrl'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url_invalid', `${field} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('url_invalid', `${field} must use http or https`);
  if (url.username || url.password) throw badRequest('url_invalid', `${field} must not carry credentials`);
  if (mode === 'live') {
    if (url.protocol !== 'https:') throw badRequest('url_not_allowed', `${field} must use https in live mode`);
    if (isPrivateAddress(url.hostname)) throw badRequest('url_not_allowed', `${field} must not point at a private, loopback or link-local address in live mode`);
  }
  return url.toString();
}
