import { CC_MAGIC, TYPE2_DATA_START, parseCapabilityContainer, scanType2Tlvs } from '@tapline/shared/ndef';

/** Reads 16 bytes (four pages) starting at a page, as the PC/SC READ BINARY does on NTAG21x. */
export type ReadFourPages = (page: number) => Promise<Uint8Array>;

const BYTES_PER_READ = 16;
/** NTAG216 has 872 data bytes; 1 KiB plus the header is more than any Type 2 tag we accept. */
const DATA_AREA_BYTES_MAX = 1024;

/**
 * Reads a Type 2 tag's header and as much of its data area as the NDEF TLV needs, 16 bytes per
 * command, and returns the bytes from page 0. It stops at the end of the NDEF message instead
 * of reading the whole tag, which keeps a tap under ~50 ms on an ACR122U.
 */
export async function readType2Memory(readFourPages: ReadFourPages): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [await readExactly(readFourPages, 0)];
  const header = chunks[0] ?? new Uint8Array(0);
  const capabilityContainer = parseCapabilityContainer(header);
  // Without the NDEF magic there is nothing more to read; the caller reports the tag as unformatted.
  if (capabilityContainer.magic !== CC_MAGIC) return header;
  const dataAreaBytes = Math.min(capabilityContainer.dataAreaBytes, DATA_AREA_BYTES_MAX);
  let dataRead = 0;
  while (dataRead < dataAreaBytes) {
    chunks.push(await readExactly(readFourPages, 4 + dataRead / 4));
    dataRead += BYTES_PER_READ;
    const data = concat(chunks).subarray(TYPE2_DATA_START);
    if (scanType2Tlvs(data, capabilityContainer.dataAreaBytes).status === 'complete') break;
  }
  return concat(chunks);
}

async function readExactly(readFourPages: ReadFourPages, page: number): Promise<Uint8Array> {
  const bytes = await readFourPages(page);
  if (bytes.length < BYTES_PER_READ) throw new Error(`Read of page ${page} returned ${bytes.length} bytes, expected ${BYTES_PER_READ}`);
  return bytes.subarray(0, BYTES_PER_READ);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
