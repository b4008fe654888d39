/**
 * NDEF for Tapline wearables: the URI record that carries a tag's tapUrl, and the NFC Forum
 * Type 2 tag memory (NTAG213/215/216, MIFARE Ultralight) that holds it.
 *
 * Used by the hardware reader (parse what a tag holds), by the tag writer (build what to write)
 * and by the terminal (tagId from a tapUrl). No dependencies and no Node APIs, so it runs in a
 * browser renderer too.
 */

/** URI identifier codes of the NFC Forum URI Record Type Definition, indexed by code. */
export const URI_PREFIXES: readonly string[] = [
  '', // 0x00: no abbreviation
  'http://www.',
  'https://www.',
  'http://',
  'https://',
  'tel:',
  'mailto:',
  'ftp://anonymous:anonymous@',
  'ftp://ftp.',
  'ftps://',
  'sftp://',
  'smb://',
  'nfs://',
  'ftp://',
  'dav://',
  'news:',
  'telnet://',
  'imap:',
  'rtsp://',
  'urn:',
  'pop:',
  'sip:',
  'sips:',
  'tftp:',
  'btspp://',
  'btl2cap://',
  'btgoep://',
  'tcpobex://',
  'irdaobex://',
  'file://',
  'urn:epc:id:',
  'urn:epc:tag:',
  'urn:epc:pat:',
  'urn:epc:raw:',
  'urn:epc:',
  'urn:nfc:', // 0x23
];

/** Type Name Format values of an NDEF record header (low three bits). */
export const TNF = {
  empty: 0x00,
  wellKnown: 0x01,
  media: 0x02,
  absoluteUri: 0x03,
  external: 0x04,
  unknown: 0x05,
  unchanged: 0x06,
} as const;

const FLAG_MB = 0x80;
const FLAG_ME = 0x40;
const FLAG_CF = 0x20;
const FLAG_SR = 0x10;
const FLAG_IL = 0x08;
const URI_RECORD_TYPE = 0x55; // "U"

/** Type 2 TLV block types (NFC Forum Type 2 Tag specification, section 2.3). */
export const TLV = {
  null: 0x00,
  lockControl: 0x01,
  memoryControl: 0x02,
  ndefMessage: 0x03,
  proprietary: 0xfd,
  terminator: 0xfe,
} as const;

/** Magic number in byte 0 of the capability container of an NDEF-formatted Type 2 tag. */
export const CC_MAGIC = 0xe1;
/** Mapping version 1.0 of the Type 2 tag specification. */
export const CC_VERSION_1_0 = 0x10;

const TAG_ID_PATTERN = /^TG[0-9A-F]{8}$/;

export class NdefError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'NdefError';
    this.code = code;
  }
}

export interface NdefRecord {
  tnf: number;
  type: Uint8Array;
  id: Uint8Array;
  payload: Uint8Array;
}

// ---------------------------------------------------------------- tag ids and tap URLs

/** True for a canonical tag id: "TG" and 8 upper-case hex digits. */
export function isTagId(value: string): boolean {
  return TAG_ID_PATTERN.test(value);
}

/** `{base_url}/tap/<tagId>`; the base URL keeps any path it has, without a trailing slash. */
export function buildTapUrl(baseUrl: string, tagId: string): string {
  if (!isTagId(tagId)) throw new NdefError('tag_id_invalid', `Tag id ${JSON.stringify(tagId)} is not TG + 8 upper-case hex digits`);
  return `${baseUrl.replace(/\/+$/, '')}/tap/${tagId}`;
}

/**
 * Splits a tapUrl into its base URL and tag id, or returns null when the URL is not a tap URL.
 * Hex digits are accepted in either case and returned upper-case, because a tag written by
 * another tool may carry lower-case hex and still name the same tag. Query and fragment are
 * ignored: the tag id is all the terminal needs.
 */
export function parseTapUrl(url: string): { baseUrl: string; tagId: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  const match = /^(.*)\/tap\/(TG[0-9A-Fa-f]{8})\/?$/.exec(parsed.pathname);
  if (!match) return null;
  const [, basePath = '', rawTagId = ''] = match;
  return { baseUrl: `${parsed.origin}${basePath}`, tagId: rawTagId.toUpperCase() };
}

// ---------------------------------------------------------------- NDEF messages and records

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Payload of an RTD-URI record: the longest matching identifier code, then the rest in UTF-8. */
export function encodeUriPayload(uri: string): Uint8Array {
  let code = 0;
  for (let index = 1; index < URI_PREFIXES.length; index += 1) {
    const prefix = URI_PREFIXES[index] ?? '';
    if (uri.startsWith(prefix) && prefix.length > (URI_PREFIXES[code] ?? '').length) code = index;
  }
  const rest = utf8Encoder.encode(uri.slice((URI_PREFIXES[code] ?? '').length));
  const payload = new Uint8Array(1 + rest.length);
  payload[0] = code;
  payload.set(rest, 1);
  return payload;
}

/** The URI an RTD-URI payload stands for. Codes above 0x23 are reserved and rejected. */
export function decodeUriPayload(payload: Uint8Array): string {
  if (payload.length === 0) throw new NdefError('uri_payload_empty', 'URI record payload is empty');
  const code = payload[0] ?? 0;
  const prefix = URI_PREFIXES[code];
  if (prefix === undefined) throw new NdefError('uri_prefix_reserved', `URI identifier code 0x${code.toString(16)} is reserved`);
  try {
    return prefix + utf8Decoder.decode(payload.subarray(1));
  } catch {
    throw new NdefError('uri_not_utf8', 'URI record payload is not valid UTF-8');
  }
}

/** Serialises records as one NDEF message (MB on the first, ME on the last, SR where it fits). */
export function encodeNdefMessage(records: readonly NdefRecord[]): Uint8Array {
  if (records.length === 0) throw new NdefError('message_empty', 'An NDEF message needs at least one record');
  const parts: Uint8Array[] = [];
  records.forEach((record, index) => {
    if (record.type.length > 255 || record.id.length > 255) throw new NdefError('record_field_too_long', 'Record type and id are at most 255 bytes');
    const shortRecord = record.payload.length <= 255;
    let header = record.tnf & 0x07;
    if (index === 0) header |= FLAG_MB;
    if (index === records.length - 1) header |= FLAG_ME;
    if (shortRecord) header |= FLAG_SR;
    if (record.id.length > 0) header |= FLAG_IL;
    const head: number[] = [header, record.type.length];
    if (shortRecord) head.push(record.payload.length);
    else {
      const length = record.payload.length;
      head.push((length >>> 24) & 0xff, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff);
    }
    if (record.id.length > 0) head.push(record.id.length);
    parts.push(Uint8Array.from(head), record.type, record.id, record.payload);
  });
  return concatBytes(parts);
}

/** A one-record NDEF message holding a well-known URI record. */
export function encodeUriMessage(uri: string): Uint8Array {
  return encodeNdefMessage([{ tnf: TNF.wellKnown, type: Uint8Array.of(URI_RECORD_TYPE), id: new Uint8Array(0), payload: encodeUriPayload(uri) }]);
}

/**
 * Parses an NDEF message into records. Chunked records (CF) are refused: no Tapline tag uses
 * them and accepting half a record would hand a truncated URI to the terminal.
 */
export function parseNdefMessage(bytes: Uint8Array): NdefRecord[] {
  const records: NdefRecord[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const header = byteAt(bytes, offset);
    if (records.length === 0 && (header & FLAG_MB) === 0) throw new NdefError('message_begin_missing', 'First record lacks the MB flag');
    if (header & FLAG_CF) throw new NdefError('chunked_record_unsupported', 'Chunked NDEF records are not supported');
    const typeLength = byteAt(bytes, offset + 1);
    let cursor = offset + 2;
    let payloadLength: number;
    if (header & FLAG_SR) {
      payloadLength = byteAt(bytes, cursor);
      cursor += 1;
    } else {
      payloadLength = ((byteAt(bytes, cursor) << 24) >>> 0) + (byteAt(bytes, cursor + 1) << 16) + (byteAt(bytes, cursor + 2) << 8) + byteAt(bytes, cursor + 3);
      cursor += 4;
    }
    let idLength = 0;
    if (header & FLAG_IL) {
      idLength = byteAt(bytes, cursor);
      cursor += 1;
    }
    const end = cursor + typeLength + idLength + payloadLength;
    if (end > bytes.length) throw new NdefError('record_truncated', 'NDEF record runs past the end of the message');
    const type = bytes.slice(cursor, cursor + typeLength);
    const id = bytes.slice(cursor + typeLength, cursor + typeLength + idLength);
    const payload = bytes.slice(cursor + typeLength + idLength, end);
    records.push({ tnf: header & 0x07, type, id, payload });
    offset = end;
    if (header & FLAG_ME) {
      if (offset !== bytes.length) throw new NdefError('bytes_after_message_end', 'Bytes follow the record flagged ME');
      return records;
    }
  }
  throw new NdefError('message_end_missing', 'NDEF message has no record flagged ME');
}

/** The URI of the first URI record (well-known "U", or an absolute-URI record), or null. */
export function findUri(records: readonly NdefRecord[]): string | null {
  for (const record of records) {
    if (record.tnf === TNF.wellKnown && record.type.length === 1 && record.type[0] === URI_RECORD_TYPE) return decodeUriPayload(record.payload);
    if (record.tnf === TNF.absoluteUri && record.type.length > 0) return new TextDecoder().decode(record.type);
  }
  return null;
}

// ---------------------------------------------------------------- Type 2 tag memory

export type Type2TagModel = 'NTAG213' | 'NTAG215' | 'NTAG216';

interface Type2Geometry {
  totalPages: number;
  /** User memory from page 4 up to the dynamic lock bytes. */
  userMemoryBytes: number;
  /**
   * Data area declared in the capability container (CC byte 2 times 8). The NXP data sheet
   * sets 0x12, 0x3E and 0x6D at the factory: NTAG215/216 declare 8 and 16 bytes fewer than
   * their user memory, and readers trust the CC, so we write the same values.
   */
  dataAreaBytes: number;
}

/** Memory sizes from the NXP NTAG213/215/216 data sheet: 45, 135 and 231 pages of 4 bytes. */
export const TYPE2_GEOMETRY: Readonly<Record<Type2TagModel, Type2Geometry>> = {
  NTAG213: { totalPages: 45, userMemoryBytes: 144, dataAreaBytes: 144 },
  NTAG215: { totalPages: 135, userMemoryBytes: 504, dataAreaBytes: 496 },
  NTAG216: { totalPages: 231, userMemoryBytes: 888, dataAreaBytes: 872 },
};

export const TYPE2_PAGE_BYTES = 4;
/** Page 4 is the first page of the data area; pages 0-3 hold UID, lock bytes and the CC. */
export const TYPE2_DATA_START = 16;
const NTAG_INTERNAL_BYTE = 0x48;
const CASCADE_TAG = 0x88;

export interface CapabilityContainer {
  magic: number;
  version: number;
  dataAreaBytes: number;
  /** Access conditions byte: high nibble read, low nibble write; 0x00 means read/write. */
  access: number;
}

export interface Type2TagImage {
  uid: Uint8Array;
  capabilityContainer: CapabilityContainer;
  /** The value of the NDEF message TLV, or null when the tag holds none (blank or formatted empty). */
  ndefMessage: Uint8Array | null;
  records: NdefRecord[];
  uri: string | null;
}

/** TLV 03 <length> <message> FE: one byte of length up to 254, else FF and two bytes. */
export function encodeNdefTlv(message: Uint8Array): Uint8Array {
  if (message.length > 0xfffe) throw new NdefError('message_too_long', 'NDEF message exceeds the TLV length field');
  const head = message.length < 0xff ? [TLV.ndefMessage, message.length] : [TLV.ndefMessage, 0xff, message.length >> 8, message.length & 0xff];
  return concatBytes([Uint8Array.from(head), message, Uint8Array.of(TLV.terminator)]);
}

/**
 * A complete memory image of an NTAG21x as a reader sees it after the tag was written with one
 * URI record: UID with its check bytes in pages 0-2, capability container in page 3, the NDEF
 * TLV from page 4, then the factory-default configuration pages. Tests read it back as a tag
 * dump; the tag writer writes pages 4 onwards of it.
 */
export function buildType2TagImage(options: { model: Type2TagModel; uid: Uint8Array; uri?: string; ndefMessage?: Uint8Array }): Uint8Array {
  const geometry = TYPE2_GEOMETRY[options.model];
  const { uid } = options;
  if (uid.length !== 7) throw new NdefError('uid_invalid', 'NTAG21x UIDs are 7 bytes');
  const message = options.ndefMessage ?? (options.uri !== undefined ? encodeUriMessage(options.uri) : null);
  const tlv = message === null ? Uint8Array.of(TLV.terminator) : encodeNdefTlv(message);
  if (tlv.length > geometry.dataAreaBytes) {
    throw new NdefError('message_too_long', `NDEF message needs ${tlv.length} bytes; ${options.model} holds ${geometry.dataAreaBytes}`);
  }
  const image = new Uint8Array(geometry.totalPages * TYPE2_PAGE_BYTES);
  const u = (index: number) => uid[index] ?? 0;
  // Page 0: UID0-2 and BCC0 (XOR with the cascade tag 0x88); page 1: UID3-6; page 2: BCC1,
  // internal byte, two static lock bytes (unlocked).
  image.set([u(0), u(1), u(2), CASCADE_TAG ^ u(0) ^ u(1) ^ u(2)], 0);
  image.set([u(3), u(4), u(5), u(6)], 4);
  image.set([u(3) ^ u(4) ^ u(5) ^ u(6), NTAG_INTERNAL_BYTE, 0x00, 0x00], 8);
  image.set([CC_MAGIC, CC_VERSION_1_0, geometry.dataAreaBytes / 8, 0x00], 12);
  image.set(tlv, TYPE2_DATA_START);
  // Factory defaults after the data area: dynamic lock bytes (RFUI 0xBD), CFG0 (MIRROR 0x04,
  // AUTH0 0xFF: no password protection), CFG1 (ACCESS 0x00, RFUI 0x05). PWD reads as zeros.
  const configStart = TYPE2_DATA_START + geometry.userMemoryBytes;
  image.set([0x00, 0x00, 0x00, 0xbd], configStart);
  image.set([0x04, 0x00, 0x00, 0xff], configStart + 4);
  image.set([0x00, 0x05, 0x00, 0x00], configStart + 8);
  return image;
}

/** Reads the capability container from page 3 of a Type 2 memory image (16 bytes or more). */
export function parseCapabilityContainer(image: Uint8Array): CapabilityContainer {
  if (image.length < TYPE2_DATA_START) throw new NdefError('image_truncated', 'Type 2 image is shorter than pages 0-3');
  return { magic: byteAt(image, 12), version: byteAt(image, 13), dataAreaBytes: byteAt(image, 14) * 8, access: byteAt(image, 15) };
}

export type TlvScan =
  | { status: 'complete'; ndefMessage: Uint8Array | null }
  | { status: 'incomplete'; bytesNeeded: number };

/**
 * Walks the TLV blocks of a data area (the bytes from page 4 on) until the NDEF message TLV or
 * the terminator. A reader that fetches the tag 16 bytes at a time calls this after every read
 * and stops as soon as it is complete, instead of reading a whole NTAG216.
 */
export function scanType2Tlvs(data: Uint8Array, dataAreaBytes: number): TlvScan {
  const limit = dataAreaBytes;
  let offset = 0;
  while (offset < limit) {
    if (offset >= data.length) return { status: 'incomplete', bytesNeeded: offset + 1 };
    const type = byteAt(data, offset);
    if (type === TLV.null) {
      offset += 1;
      continue;
    }
    if (type === TLV.terminator) return { status: 'complete', ndefMessage: null };
    if (offset + 1 >= data.length) return { status: 'incomplete', bytesNeeded: offset + 2 };
    let length = byteAt(data, offset + 1);
    let valueStart = offset + 2;
    if (length === 0xff) {
      if (offset + 3 >= data.length) return { status: 'incomplete', bytesNeeded: offset + 4 };
      length = (byteAt(data, offset + 2) << 8) | byteAt(data, offset + 3);
      valueStart = offset + 4;
    }
    const valueEnd = valueStart + length;
    if (valueEnd > limit) throw new NdefError('tlv_overflows_data_area', 'A TLV block runs past the data area declared in the capability container');
    if (type === TLV.ndefMessage) {
      if (valueEnd > data.length) return { status: 'incomplete', bytesNeeded: valueEnd };
      return { status: 'complete', ndefMessage: length === 0 ? null : data.slice(valueStart, valueEnd) };
    }
    // Lock control, memory control and proprietary TLVs describe memory we do not need to read.
    offset = valueEnd;
  }
  return { status: 'complete', ndefMessage: null };
}

/**
 * Parses a Type 2 tag memory dump (at least pages 0-3 and the data area up to the NDEF TLV's
 * end; a full dump works as well) into UID, capability container, records and URI.
 */
export function parseType2TagImage(image: Uint8Array): Type2TagImage {
  const capabilityContainer = parseCapabilityContainer(image);
  if (capabilityContainer.magic !== CC_MAGIC) {
    throw new NdefError('not_ndef_formatted', `Capability container magic is 0x${capabilityContainer.magic.toString(16)}, not 0xe1`);
  }
  if (capabilityContainer.version >> 4 !== 1) throw new NdefError('mapping_version_unsupported', `Type 2 mapping version 0x${capabilityContainer.version.toString(16)} is not 1.x`);
  const uid = Uint8Array.of(byteAt(image, 0), byteAt(image, 1), byteAt(image, 2), byteAt(image, 4), byteAt(image, 5), byteAt(image, 6), byteAt(image, 7));
  const scan = scanType2Tlvs(image.subarray(TYPE2_DATA_START), capabilityContainer.dataAreaBytes);
  if (scan.status === 'incomplete') throw new NdefError('image_truncated', 'Type 2 image ends inside a TLV block');
  const records = scan.ndefMessage === null ? [] : parseNdefMessage(scan.ndefMessage);
  return { uid, capabilityContainer, ndefMessage: scan.ndefMessage, records, uri: findUri(records) };
}

// ---------------------------------------------------------------- helpers

/** Upper-case hex without separators, the form UIDs are logged and compared in. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('').toUpperCase();
}

function byteAt(bytes: Uint8Array, index: number): number {
  const value = bytes[index];
  if (value === undefined) throw new NdefError('bytes_truncated', `Expected a byte at offset ${index}`);
  return value;
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
