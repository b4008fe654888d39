import { open } from 'node:fs/promises';
import { TransportError } from './types.ts';
import type { PrinterTransport } from './types.ts';

/**
 * USB receipt printers on Linux through the kernel's printer-class driver (usblp), which
 * exposes each printer as /dev/usb/lpN: writing to the file prints. A write returns once the
 * driver has handed the bytes to the USB stack. No status: usblp's status ioctl needs native code.
 */
export class DeviceFileTransport implements PrinterTransport {
  readonly description: string;

  constructor(
    private readonly path: string,
    private readonly sendTimeoutMs = 30_000,
  ) {
    this.description = `usb ${path}`;
  }

  async send(bytes: Uint8Array): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const work = async () => {
      // 'a' appends on a regular file (tests) and is a plain write on a character device.
      const handle = await open(this.path, 'a');
      try {
        let written = 0;
        while (written < bytes.length) {
          const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
          written += bytesWritten;
        }
      } finally {
        await handle.close();
      }
    };
    try {
      await Promise.race([
        work(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new TransportError('timeout', `${this.description} timed out`)), this.sendTimeoutMs);
        }),
      ]);
    } catch (error) {
      throw error instanceof TransportError ? error : new TransportError('write_failed', `${this.description}: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async query(): Promise<number[] | null> {
    return null;
  }

  async close(): Promise<void> {}
}
