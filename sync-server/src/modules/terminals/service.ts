import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import { type IssuedPairingCode, type PairedTerminal, issuePairingCode, pairTerminal, pairableTerminal, pairingAnswer } from './pairing.ts';

/**
 * Pairing a kiosk, as its routes ask for it: the rules (codes, expiry, the lock-out, the token
 * exchange) are pairing.ts's, also used by `merchants` when it adds a terminal; this binds them to
 * the context's database and clock, which judges every code's expiry.
 */
export function terminalService(context: AppContext) {
  const { db } = context;

  /** A fresh code for one of the merchant's live terminals (its older code stops working), with its QR image. */
  async function newPairingCode(merchant: { merchantId: string; mode: Mode }, terminalId: string): Promise<IssuedPairingCode & { terminalId: string; pairingQr: string }> {
    const terminal = await pairableTerminal(db, terminalId, merchant.merchantId, merchant.mode);
    const issued = await issuePairingCode(db, terminal.id, context.now());
    return { terminalId: terminal.id, ...(await pairingAnswer(issued)) };
  }

  /** The kiosk's exchange of a typed code for its terminal's new token; misses count against the client's IP. */
  async function pair(typedCode: string, ip: string): Promise<PairedTerminal> {
    return pairTerminal(db, typedCode, ip, context.now());
  }

  return { newPairingCode, pair };
}

export type TerminalService = ReturnType<typeof terminalService>;
