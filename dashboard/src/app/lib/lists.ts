import type { MessageKey } from '@tapline/shared/i18n';
import type { Words } from './i18n.ts';

/** One moment of a record's life, as the timeline shows it; entries without `at` are left out. */
export interface TimelineEntry {
  label: string;
  at: string | null | undefined;
  note?: string | null | undefined;
  /** A status word for the badge's colour (failed, declined...). */
  tone?: string | undefined;
}

/** A label and its value in a details list; empty values are left out. */
export type Fact = readonly [label: string, value: string | number | null | undefined];

/** The word of `key` when the catalogue has one, else `fallback` (a value the API added later). */
export function wordOr(w: Words, key: string, fallback: string): string {
  const text = w.t(key as MessageKey);
  return text === key ? fallback : text;
}

/** A status in the page's language (dashboard.status.<status>). */
export function statusWord(w: Words, status: string): string {
  return wordOr(w, `dashboard.status.${status}`, status);
}

/** Options of a status filter: each value with its word. */
export function statusOptions(w: Words, statuses: readonly string[]): { value: string; label: string }[] {
  return statuses.map((value) => ({ value, label: statusWord(w, value) }));
}

