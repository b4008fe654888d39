// The parts of nfc-pcsc (no published types) that the worker uses.
declare module 'nfc-pcsc' {
  import type { EventEmitter } from 'node:events';

  export interface PcscCard {
    atr?: Buffer;
    standard?: string;
    type?: string;
  }

  export interface PcscReader extends EventEmitter {
    readonly name: string;
    autoProcessing: boolean;
    transmit(data: Buffer, responseMaxLength: number): Promise<Buffer>;
    read(blockNumber: number, length: number, blockSize?: number, packetSize?: number): Promise<Buffer>;
    close(): void;
  }

  export class NFC extends EventEmitter {
    constructor(logger?: unknown);
    close(): void;
  }

  export const TAG_ISO_14443_3: string;
  export const TAG_ISO_14443_4: string;
}
