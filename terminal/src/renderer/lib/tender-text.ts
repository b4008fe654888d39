import type { MessageKey } from '@tapline/shared/i18n';
import type { TillTender } from '@tapline/shared/sync-protocol';
import { money } from './format.ts';

type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** One tender of a till sale as the cashier reads it (the Split screen, the outcome): cash with what was handed over and the change. */
export function tenderText(tender: TillTender, currency: string, t: Translate): string {
  const amount = money(tender.amountMinor, currency);
  switch (tender.kind) {
    case 'cash':
      return t('kiosk.split.tenderCash', { amount, tendered: money(tender.tenderedMinor ?? tender.amountMinor, currency), change: money(tender.changeMinor ?? 0, currency) });
    case 'wallet':
      return t('kiosk.split.tenderWallet', { amount });
    case 'gift_card':
      return t('kiosk.split.tenderGiftCard', { amount });
    case 'offline_tap':
      return t('kiosk.split.tenderOfflineTap', { amount });
    default:
      return t('kiosk.split.tenderMobile', { amount });
  }
}
