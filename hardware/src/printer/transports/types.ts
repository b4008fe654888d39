/** How receipt bytes reach a printer. */
export interface PrinterTransport {
  /** For status and logs, e.g. "tcp 192.168.1.50:9100". */
  readonly description: string;
  /**
   * Delivers a whole job. Resolves only once the transport has confirmed delivery (the printer
   * answered a status request sent after the job, or the bytes were drained to the device);
   * rejects on any failure, after which the job counts as not printed and is retried.
   */
  send(bytes: Uint8Array): Promise<void>;
  /**
   * Sends real-time status requests and returns one answer byte per request, or null when the
   * device does not answer (or the transport cannot read).
   */
  query(requests: readonly Uint8Array[]): Promise<number[] | null>;
  close(): Promise<void>;
}

export class TransportError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TransportError';
    this.code = code;
  }
}
