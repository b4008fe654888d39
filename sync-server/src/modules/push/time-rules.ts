import type { DeclineCode } from '@tapline/shared/decline-codes';
import { type PushedCollection, pushedDocumentProblems } from '@tapline/shared/sync-documents';

// The rules every pushed document keeps, whatever its collection and module: a readable capture
// time, not in the future, not before its terminal (offline/policy.ts holds the offline payments'
// own rules on top of these).

/** Why a pushed document is declined: its decline code and a sentence. */
export interface PolicyDecline {
  code: DeclineCode;
  reason: string;
}

/** The capture times a document may carry: what the database stores and the clock rules can judge. */
const EARLIEST_CAPTURE = Date.UTC(1970, 0, 1);
const LATEST_CAPTURE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const CAPTURED_AT_PROBLEM = 'capturedAt must be an ISO 8601 time between 1970 and 9999';

/**
 * What the document's schema (shared/src/sync-documents.ts) finds wrong that the caller's rules did
 * not already say: a field a rule judged (its sentence starts with the field's name), or that
 * `alsoJudged` names, is not reported twice.
 */
export function schemaProblems(collection: PushedCollection, doc: Record<string, unknown>, problems: readonly string[], alsoJudged: readonly string[] = []): string[] {
  const judged = new Set([...problems.map((problem) => problem.split(' ')[0]), ...alsoJudged]);
  return [...pushedDocumentProblems(collection, doc)].filter(([field]) => !judged.has(field)).map(([, problem]) => problem);
}

/**
 * A pushed `capturedAt` as a Date, or null when it is not a time the policy can judge. A kiosk
 * whose clock battery died dates its sales 1970: that parses, and the clock rules decline it;
 * a date JavaScript can hold but the database cannot (year 275760) does not.
 */
export function parseCapturedAt(value: unknown): Date | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  const time = new Date(value).getTime();
  return Number.isNaN(time) || time < EARLIEST_CAPTURE || time > LATEST_CAPTURE ? null : new Date(time);
}

/** A terminal's clock may run this far from the server's. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Whether a terminal dated what it took too far ahead of the server's clock to be believed. */
export function capturedInFuture(capturedAt: Date, now: Date): boolean {
  return capturedAt.getTime() > now.getTime() + CLOCK_SKEW_MS;
}

/** The rules every pushed document keeps, whatever its collection. */
export function timeDecline(capturedAt: Date, now: Date, terminalCreatedAt: Date): PolicyDecline | null {
  if (capturedInFuture(capturedAt, now)) {
    return { code: 'captured_in_future', reason: 'The terminal\'s clock is ahead of the server\'s: this was dated more than 5 minutes in the future' };
  }
  if (capturedAt.getTime() < terminalCreatedAt.getTime() - CLOCK_SKEW_MS) {
    return { code: 'captured_before_terminal', reason: `This was dated ${capturedAt.toISOString()}, before the terminal was created (${terminalCreatedAt.toISOString()})` };
  }
  return null;
}

