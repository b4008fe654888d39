import type { DrawerReason, DrawerResult } from '@tapline/hardware/browser';

/**
 * The cash drawer, from the kiosk's screens: one call that never throws, so a drawer that does not
 * open (no printer, a refused kick, a bridge that does not answer) is a notice on screen and never
 * loses a sale. The kick goes through the receipt printer (HardwareConnection.openDrawer), once
 * per job id: asking again for the same sale (a reload, "Open the drawer" pressed twice) does not
 * kick twice once a kick got through.
 */

/** What the screen says: opened (with the drawer's sensor when the printer reports it), or why not. */
export type DrawerOutcome =
  | { state: 'opened'; drawer: DrawerResult['drawer'] }
  /** No hardware connection on this page (no bridge, no kiosk app). */
  | { state: 'unavailable' }
  /** `reason`: the bridge's or printer's words; null when the printer answered that the kick did not get through. */
  | { state: 'failed'; reason: string | null };

/** The part of HardwareConnection this needs. */
export interface DrawerPort {
  openDrawer(request: { reason: DrawerReason; jobId: string }): Promise<DrawerResult>;
}

/** How long a kick may take before the screen says it did not open (the printer answers in under a second). */
export const DRAWER_TIMEOUT_MS = 15_000;

/** Opens the drawer for `jobId` (a sale's id) and says how it went; never rejects. */
export async function openCashDrawer(hardware: DrawerPort | null, reason: DrawerReason, jobId: string, timeoutMs = DRAWER_TIMEOUT_MS): Promise<DrawerOutcome> {
  if (hardware === null) return { state: 'unavailable' };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the printer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    const result = await Promise.race([hardware.openDrawer({ reason, jobId }), timeout]);
    return result.opened ? { state: 'opened', drawer: result.drawer } : { state: 'failed', reason: null };
  } catch (error) {
    return { state: 'failed', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
