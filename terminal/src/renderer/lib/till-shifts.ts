/**
 * The till's shifts in its replica: the open shift, new events (stored before anything else
 * happens: a drawer that fails to open never loses the event), a shift's figures, and the cash
 * refunds given from the drawer. The rules are lib/shifts.ts's; this reads and writes RxDB.
 */
import type { MangoQuery } from 'rxdb';
import type { DrawerReason } from '@tapline/hardware/browser';
import type { ShiftEventDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import type { HardwareConnection } from './hardware.ts';
import type { DrawerRefundCollection, ShiftEventCollection, TillSaleCollection } from './replica.ts';
import { type DrawerRefundDoc, type OpenShift, type ShiftEventInput, type ShiftFigures, openShiftOf, shiftEvent, shiftFigures } from './shifts.ts';

export class TillShifts {
  readonly #events: ShiftEventCollection;
  readonly #sales: TillSaleCollection;
  readonly #refunds: DrawerRefundCollection;
  readonly #terminalId: string;

  constructor(replica: { shiftEvents: ShiftEventCollection; tillSales: TillSaleCollection; drawerRefunds: DrawerRefundCollection }, terminalId: string) {
    this.#events = replica.shiftEvents;
    this.#sales = replica.tillSales;
    this.#refunds = replica.drawerRefunds;
    this.#terminalId = terminalId;
  }

  async #allEvents(): Promise<ShiftEventDoc[]> {
    return (await this.#events.find().exec()).map((doc) => doc.toMutableJSON());
  }

  /** The shift open at this till (an `open` without a `close`), or null. */
  async openShift(): Promise<OpenShift | null> {
    return openShiftOf(await this.#allEvents());
  }

  /** Stores the event (queued: it syncs when it can) and answers it. */
  async record(input: ShiftEventInput, now: Date = new Date()): Promise<ShiftEventDoc> {
    const doc = shiftEvent(input, this.#terminalId, now);
    await this.#events.insert(doc);
    return doc;
  }

  /** A shift's float, cash sales and refunds, paid in and out, from the replica. */
  async figures(shiftId: string): Promise<ShiftFigures> {
    const events = (await this.#events.find({ selector: { shiftId } } as MangoQuery<ShiftEventDoc>).exec()).map((doc) => doc.toMutableJSON());
    const sales = (await this.#sales.find({ selector: { shiftId } } as MangoQuery<TillSaleDoc>).exec()).map((doc) => doc.toMutableJSON());
    const refunds = (await this.#refunds.find({ selector: { shiftId } } as MangoQuery<DrawerRefundDoc>).exec()).map((doc) => doc.toMutableJSON());
    return shiftFigures(shiftId, events, sales, refunds);
  }

  /** A cash refund given from the drawer in this shift (a repeated answer for the same refund is the same record). */
  async refundedFromDrawer(refund: DrawerRefundDoc): Promise<void> {
    await this.#refunds.upsert(refund);
  }
}

/**
 * Pulses the drawer for an event already stored (its id is the kick's job id: a retried kick opens
 * once). Answers whether it opened and, when not, the bridge's or printer's words for support: the
 * screen shows a notice that does not stop the cashier.
 */
export async function pulseDrawer(hardware: HardwareConnection | null, reason: DrawerReason, jobId: string): Promise<{ opened: boolean; detail: string | null }> {
  if (hardware === null) return { opened: false, detail: null };
  try {
    const result = await hardware.openDrawer({ reason, jobId });
    return { opened: result.opened, detail: null };
  } catch (error) {
    return { opened: false, detail: (error as Error).message };
  }
}
