import type { HardwareConnection } from './hardware.ts';
import { t } from './language.svelte.ts';
import type { ReceiptRequest } from './receipt.ts';

/**
 * Prints a receipt from a back-office screen (refund, end of day) and answers what the cashier
 * reads: printed, queued for the printer, or why not. `request` is null without the terminal's
 * printer settings.
 */
export async function printWithStatus(hardware: HardwareConnection | null, request: () => ReceiptRequest | null): Promise<string> {
  const made = hardware === null ? null : request();
  if (hardware === null || made === null) return t('kiosk.history.notPrinted', { reason: t('kiosk.outcome.noBridge') });
  try {
    const result = await hardware.printReceipt(made);
    return t(result.state === 'printed' ? 'kiosk.history.printed' : 'kiosk.history.queued');
  } catch (error) {
    return t('kiosk.history.notPrinted', { reason: (error as Error).message });
  }
}
