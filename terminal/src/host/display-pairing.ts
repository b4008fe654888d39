import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * Pairing a tablet (the customer display on another device of the shop's LAN) with the till.
 * The till asks for a short code (6 digits, valid 10 minutes, good for one tablet); the tablet
 * sends it once and gets a long random display token it keeps, so a reload or a reconnect needs
 * no new code. The till can revoke every token at once (unpair).
 *
 * A 6-digit code is guessable, so guesses are bounded three ways: 5 attempts a minute per
 * address, 30 a minute from all addresses together, and the code itself is burnt after 10 wrong
 * guesses (the cashier shows a new one): at most 10 in a million for one code. Tokens are 32
 * random bytes; only their SHA-256 is kept (in memory, and in `tokenFile` when given), and both
 * codes and token hashes are compared in constant time.
 */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;
export const PAIRING_CODE_DIGITS = 6;
export const ATTEMPTS_PER_ADDRESS_PER_MINUTE = 5;
export const ATTEMPTS_PER_MINUTE = 30;
export const WRONG_GUESSES_PER_CODE = 10;
const MINUTE_MS = 60_000;

/** The host's own error codes for the display's endpoints (answered as `{error, code}`). */
export type PairingRefusal =
  | { status: 400; code: 'display_code_invalid'; error: string }
  | { status: 403; code: 'display_code_wrong'; error: string }
  | { status: 410; code: 'display_code_expired'; error: string }
  | { status: 429; code: 'display_pairing_rate_limited'; error: string; retryAfterSeconds: number };

export type PairResult = { ok: true; token: string } | ({ ok: false } & PairingRefusal);

export interface PairingCode {
  code: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface DisplayPairingOptions {
  now?: () => number;
  /** Where the token hashes are kept across restarts (the kiosk's data folder); in memory only without. */
  tokenFile?: string;
  /** A code of PAIRING_CODE_DIGITS digits (tests give their own). */
  newCode?: () => string;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Equal strings of any length, in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  // Hashing first gives equal lengths, so the comparison never leaks the length either.
  return timingSafeEqual(hashToken(a), hashToken(b));
}

function randomCode(): string {
  return String(randomInt(0, 10 ** PAIRING_CODE_DIGITS)).padStart(PAIRING_CODE_DIGITS, '0');
}

export class DisplayPairing {
  private readonly now: () => number;
  private readonly newCode: () => string;
  private readonly tokenFile: string | undefined;
  private current: (PairingCode & { wrongGuesses: number }) | null = null;
  private tokens: Buffer[] = [];
  /** Attempt times per address, and of all addresses, within the last minute. */
  private readonly attempts = new Map<string, number[]>();
  private allAttempts: number[] = [];

  constructor(options: DisplayPairingOptions = {}) {
    this.now = options.now ?? Date.now;
    this.newCode = options.newCode ?? randomCode;
    this.tokenFile = options.tokenFile;
    this.tokens = this.readTokens();
  }

  /** A new code, replacing any code not used yet. */
  createCode(): PairingCode {
    const code = this.newCode();
    if (!new RegExp(`^\\d{${PAIRING_CODE_DIGITS}}$`).test(code)) throw new Error(`a pairing code is ${PAIRING_CODE_DIGITS} digits`);
    this.current = { code, expiresAt: this.now() + PAIRING_CODE_TTL_MS, wrongGuesses: 0 };
    return { code, expiresAt: this.current.expiresAt };
  }

  /** The code waiting for a tablet, if any (expired ones are gone). */
  pendingCode(): PairingCode | null {
    if (this.current === null || this.current.expiresAt <= this.now()) return null;
    return { code: this.current.code, expiresAt: this.current.expiresAt };
  }

  /** How many tablets hold a token. */
  get pairedCount(): number {
    return this.tokens.length;
  }

  /** A tablet at `address` sends `code`: a token when it is the current code, unused and on time. */
  pair(code: unknown, address: string): PairResult {
    const limited = this.countAttempt(address);
    if (limited !== null) return { ok: false, ...limited };
    if (typeof code !== 'string' || !new RegExp(`^\\d{${PAIRING_CODE_DIGITS}}$`).test(code.trim())) {
      return { ok: false, status: 400, code: 'display_code_invalid', error: `A pairing code is ${PAIRING_CODE_DIGITS} digits, as the till shows it` };
    }
    const current = this.current;
    if (current === null || !constantTimeEqual(code.trim(), current.code)) {
      if (current !== null && ++current.wrongGuesses >= WRONG_GUESSES_PER_CODE) this.current = null;
      return { ok: false, status: 403, code: 'display_code_wrong', error: 'This code is wrong or already used: show a new code on the till' };
    }
    if (current.expiresAt <= this.now()) {
      this.current = null;
      return { ok: false, status: 410, code: 'display_code_expired', error: 'This code has expired: show a new code on the till' };
    }
    // Single use: the code is gone before the token is handed out.
    this.current = null;
    const token = randomBytes(32).toString('base64url');
    this.tokens.push(hashToken(token));
    this.writeTokens();
    return { ok: true, token };
  }

  /** Whether `token` is one handed out and not revoked (every stored hash compared, in constant time). */
  verify(token: unknown): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 256) return false;
    const presented = hashToken(token);
    let found = false;
    for (const stored of this.tokens) found = timingSafeEqual(presented, stored) || found;
    return found;
  }

  /** Unpair: every token and the pending code are void. Answers how many tablets were paired. */
  revokeAll(): number {
    const count = this.tokens.length;
    this.tokens = [];
    this.current = null;
    this.writeTokens();
    return count;
  }

  private countAttempt(address: string): Extract<PairingRefusal, { status: 429 }> | null {
    const now = this.now();
    const since = now - MINUTE_MS;
    const mine = (this.attempts.get(address) ?? []).filter((at) => at > since);
    this.allAttempts = this.allAttempts.filter((at) => at > since);
    // Forget addresses that went quiet, so the map cannot grow without bound.
    for (const [other, times] of this.attempts) if (times.every((at) => at <= since)) this.attempts.delete(other);
    const limit = mine.length >= ATTEMPTS_PER_ADDRESS_PER_MINUTE ? mine : this.allAttempts.length >= ATTEMPTS_PER_MINUTE ? this.allAttempts : null;
    if (limit !== null) {
      const retryAfterSeconds = Math.max(1, Math.ceil((limit[0]! + MINUTE_MS - now) / 1000));
      this.attempts.set(address, mine);
      return { status: 429, code: 'display_pairing_rate_limited', error: `Too many pairing attempts: try again in ${retryAfterSeconds} s`, retryAfterSeconds };
    }
    mine.push(now);
    this.attempts.set(address, mine);
    this.allAttempts.push(now);
    return null;
  }

  private readTokens(): Buffer[] {
    if (this.tokenFile === undefined) return [];
    let text: string;
    try {
      text = readFileSync(this.tokenFile, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(text) as { sha256?: unknown };
      if (!Array.isArray(parsed.sha256)) return [];
      return parsed.sha256.filter((hex): hex is string => typeof hex === 'string' && /^[0-9a-f]{64}$/.test(hex)).map((hex) => Buffer.from(hex, 'hex'));
    } catch {
      // A damaged file pairs nobody: the tablets ask for a new code.
      return [];
    }
  }

  private writeTokens(): void {
    if (this.tokenFile === undefined) return;
    // Written aside and renamed: a crash never leaves half a file.
    const aside = `${this.tokenFile}.tmp`;
    writeFileSync(aside, `${JSON.stringify({ sha256: this.tokens.map((hash) => hash.toString('hex')) })}\n`, { mode: 0o600 });
    renameSync(aside, this.tokenFile);
  }
}
