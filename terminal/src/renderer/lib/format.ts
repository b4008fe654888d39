import { toMinor } from '@tapline/shared/money';
import { formatMoney } from './language.svelte.ts';

/**
 * Every amount the kiosk shows goes through here, so there is one money format on every screen
 * (the kiosk's language's Intl format with all the currency's decimals: "NGN 1,250.00",
 * "1 250,00 NGN") and one place to change it.
 */
export function money(minor: number, currency: string): string {
  return formatMoney(minor, currency);
}

/** A session amount (major units, as the API sends it) for people: "NGN 1,250.00". */
export function formatSessionAmount(amount: number, currency: string): string {
  return money(toMinor(amount, currency), currency);
}

/** A time of day on this kiosk's clock, hours and minutes ("14:05"). */
export function timeOfDay(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
}
