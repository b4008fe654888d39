/**
 * Who is selling at this till now: the member of the till staff signed in with their PIN and the
 * shift they run (lib/shifts.ts). Reactive, one per page: the status bar, the Sale screen and the
 * shift screens read it; whatever records a sale, a refund or a drawer opening takes the cashier
 * and shift from here (currentSaleAttribution), so every one of them says who did it.
 *
 * Not kept over a reload: a reloaded till asks for the PIN again, and the shift, which lives in
 * the replica's shift_events, goes on when the same cashier signs back in.
 */
import type { TillStaffRole } from '@tapline/shared/sync-protocol';

export interface CashierSession {
  staffId: string;
  name: string;
  role: TillStaffRole;
  /** The shift open at this till under this cashier. */
  shiftId: string;
}

class CurrentCashier {
  #session = $state<CashierSession | null>(null);

  get current(): CashierSession | null {
    return this.#session;
  }

  signIn(session: CashierSession): void {
    this.#session = session;
  }

  signOut(): void {
    this.#session = null;
  }
}

export const cashier = new CurrentCashier();

/** Who made a sale or refund: the signed-in cashier and their shift; nothing when no cashier signs in at this till. */
export function currentSaleAttribution(): { cashierId?: string; shiftId?: string } {
  const session = cashier.current;
  return session === null ? {} : { cashierId: session.staffId, shiftId: session.shiftId };
}
