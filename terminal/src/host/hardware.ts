import { type NfcReader, type ReceiptPrinter, BridgeWebSocketServer, SimulatedNfcReader, createNfcReader, createPrinter, nfcConfigFromEnv, printerConfigFromEnv } from '@tapline/hardware';

export interface TerminalHardware {
  nfc: NfcReader;
  printer: ReceiptPrinter;
  /** The reader when it is the simulator. */
  simulator: SimulatedNfcReader | null;
  /** The loopback bridge, or null when the page reaches the hardware over Electron IPC. */
  bridge: BridgeWebSocketServer | null;
  close(): Promise<void>;
}

export interface HardwareOptions {
  /** Defaults to createNfcReader(nfcConfigFromEnv()): PC/SC when pcscd runs, else the simulator. */
  nfc?: NfcReader;
  /** Defaults to createPrinter(printerConfigFromEnv()): VirtualPrinter unless PRINTER names a device. */
  printer?: ReceiptPrinter;
  /** Pages allowed to open the bridge (the terminal's own origins). */
  allowedOrigins: string[];
  /** false: no loopback bridge (Electron carries the hardware over IPC). Default true. */
  webSocket?: boolean;
}

/**
 * Starts the reader and opens the loopback bridge the renderer talks to (unless Electron carries
 * the hardware over IPC). The host owns what it is given as well: close() stops the reader and
 * closes the printer.
 */
export async function startHardware(options: HardwareOptions): Promise<TerminalHardware> {
  const nfc = options.nfc ?? createNfcReader(nfcConfigFromEnv());
  const printer = options.printer ?? createPrinter(printerConfigFromEnv());
  // Starting is asynchronous for the PC/SC driver (worker process); a missing service is a
  // state the status bar shows, not a failure of the terminal.
  await nfc.start();
  const simulator = nfc instanceof SimulatedNfcReader ? nfc : null;
  const bridge =
    options.webSocket === false
      ? null
      : await BridgeWebSocketServer.start({ nfc, printer, allowedOrigins: options.allowedOrigins, ...(simulator ? { simulator } : {}) });
  return {
    nfc,
    printer,
    simulator,
    bridge,
    async close() {
      await bridge?.close();
      await Promise.allSettled([nfc.stop(), printer.close()]);
    },
  };
}
