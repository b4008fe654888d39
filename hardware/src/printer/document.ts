/**
 * The receipt content model: what a receipt says, independent of the bytes a printer needs.
 * Layouts produce it, the ESC/POS encoder turns it into bytes and the preview draws it, so the
 * preview shows what prints. It is plain JSON, so it can cross the bridge and sit in the queue.
 */

export type PaperWidth = 58 | 80;

/** Characters per line in font A (12x24 dots) on 203 dpi printers: 384 and 576 printable dots. */
export const COLUMNS: Readonly<Record<PaperWidth, number>> = { 58: 32, 80: 48 };
export const PRINTABLE_DOTS: Readonly<Record<PaperWidth, number>> = { 58: 384, 80: 576 };
export const CHAR_WIDTH_DOTS = 12;
export const CHAR_HEIGHT_DOTS = 24;

export type Alignment = 'left' | 'center' | 'right';

export interface TextBlock {
  kind: 'text';
  /** One printed line. Layout has already fitted it: at most columns / size characters. */
  text: string;
  align?: Alignment;
  bold?: boolean;
  /** 2 prints double width and double height. */
  size?: 1 | 2;
  invert?: boolean;
}

export interface RuleBlock {
  kind: 'rule';
  style?: 'single' | 'double';
}

export interface QrBlock {
  kind: 'qr';
  data: string;
  /** Dots per module, 1 to 8. */
  moduleDots?: number;
}

export interface BarcodeBlock {
  kind: 'barcode';
  /** Printable ASCII, encoded as Code 128 set B. */
  data: string;
  heightDots?: number;
}

/** 1-bit image: rows of ceil(width / 8) bytes, most significant bit first, 1 = black dot. */
export interface MonochromeImage {
  width: number;
  height: number;
  bitsBase64: string;
}

export interface ImageBlock {
  kind: 'image';
  image: MonochromeImage;
}

export interface FeedBlock {
  kind: 'feed';
  lines: number;
}

export type ReceiptBlock = TextBlock | RuleBlock | QrBlock | BarcodeBlock | ImageBlock | FeedBlock;

export interface ReceiptDocument {
  paperWidth: PaperWidth;
  /** Code page for the merchant's language (see codepages.ts), e.g. "cp858". */
  codepage: string;
  blocks: ReceiptBlock[];
  cut: 'full' | 'partial' | 'none';
  /** Pulse the cash drawer after printing (cash sales). */
  openCashDrawer?: boolean;
}

export const BLOCKS_MAX = 2000;
export const DEFAULT_QR_MODULE_DOTS = 6;
export const DEFAULT_BARCODE_HEIGHT_DOTS = 80;

export function columnsFor(document: Pick<ReceiptDocument, 'paperWidth'>): number {
  return COLUMNS[document.paperWidth];
}

// ---------------------------------------------------------------- text fitting helpers

/** Pads or cuts text to exactly `width` characters with the given alignment. */
export function alignText(text: string, width: number, align: Alignment = 'left'): string {
  const characters = Array.from(text);
  if (characters.length >= width) return characters.slice(0, width).join('');
  const space = width - characters.length;
  if (align === 'right') return ' '.repeat(space) + text;
  if (align === 'center') {
    const left = Math.floor(space / 2);
    return ' '.repeat(left) + text + ' '.repeat(space - left);
  }
  return text + ' '.repeat(space);
}

/** Left text and right text on one line; the left side is cut (with "~") if both do not fit. */
export function twoColumns(left: string, right: string, width: number): string {
  const rightCharacters = Array.from(right);
  const room = width - rightCharacters.length - 1;
  if (room < 1) return alignText(right, width, 'right');
  const leftCharacters = Array.from(left);
  const fittedLeft = leftCharacters.length > room ? `${leftCharacters.slice(0, room - 1).join('')}~` : left;
  return alignText(fittedLeft, room, 'left') + ' ' + right;
}

/** Word-wraps text into lines of at most `width` characters; long words are broken. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter((part) => part.length > 0)) {
      let rest = word;
      while (Array.from(rest).length > width) {
        if (line !== '') {
          lines.push(line);
          line = '';
        }
        const characters = Array.from(rest);
        lines.push(characters.slice(0, width).join(''));
        rest = characters.slice(width).join('');
      }
      if (rest === '') continue;
      const candidate = line === '' ? rest : `${line} ${rest}`;
      if (Array.from(candidate).length <= width) line = candidate;
      else {
        lines.push(line);
        line = rest;
      }
    }
    lines.push(line);
  }
  return lines;
}

// ---------------------------------------------------------------- images

export function decodeImageBits(image: MonochromeImage): Uint8Array {
  const bytes = base64ToBytes(image.bitsBase64);
  const expected = Math.ceil(image.width / 8) * image.height;
  if (bytes.length !== expected) throw new Error(`Image bits hold ${bytes.length} bytes, expected ${expected} for ${image.width}x${image.height}`);
  return bytes;
}

export function imageDotAt(bits: Uint8Array, image: Pick<MonochromeImage, 'width'>, x: number, y: number): boolean {
  const rowBytes = Math.ceil(image.width / 8);
  const byte = bits[y * rowBytes + (x >> 3)] ?? 0;
  return (byte & (0x80 >> (x & 7))) !== 0;
}

/** Builds a 1-bit image from a predicate, e.g. a logo drawn in code or read from a PNG. */
export function monochromeImage(width: number, height: number, isBlack: (x: number, y: number) => boolean): MonochromeImage {
  const rowBytes = Math.ceil(width / 8);
  const bits = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (isBlack(x, y)) bits[y * rowBytes + (x >> 3)] = (bits[y * rowBytes + (x >> 3)] ?? 0) | (0x80 >> (x & 7));
    }
  }
  return { width, height, bitsBase64: bytesToBase64(bits) };
}

// btoa/atob exist in Node 20 and in browsers, so the model stays usable in the terminal UI.
function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

// ---------------------------------------------------------------- validation

/** Checks a document that arrives over the bridge before it reaches the encoder. */
export function validateReceiptDocument(value: unknown): ReceiptDocument {
  if (typeof value !== 'object' || value === null) throw new Error('Receipt document must be an object');
  const document = value as Partial<ReceiptDocument>;
  if (document.paperWidth !== 58 && document.paperWidth !== 80) throw new Error('paperWidth must be 58 or 80');
  if (typeof document.codepage !== 'string' || document.codepage.length > 40) throw new Error('codepage must be a code page name');
  if (document.cut !== 'full' && document.cut !== 'partial' && document.cut !== 'none') throw new Error('cut must be full, partial or none');
  if (!Array.isArray(document.blocks) || document.blocks.length > BLOCKS_MAX) throw new Error(`blocks must be an array of at most ${BLOCKS_MAX}`);
  const columns = COLUMNS[document.paperWidth];
  for (const block of document.blocks as unknown[]) validateBlock(block, columns);
  return document as ReceiptDocument;
}

function validateBlock(value: unknown, columns: number): void {
  if (typeof value !== 'object' || value === null) throw new Error('Each block must be an object');
  const block = value as ReceiptBlock;
  switch (block.kind) {
    case 'text':
      if (typeof block.text !== 'string') throw new Error('text block needs text');
      if (block.size !== undefined && block.size !== 1 && block.size !== 2) throw new Error('text size must be 1 or 2');
      if (Array.from(block.text).length > columns / (block.size ?? 1)) throw new Error(`text line is wider than ${columns / (block.size ?? 1)} characters: ${JSON.stringify(block.text)}`);
      return;
    case 'rule':
    case 'feed':
      if (block.kind === 'feed' && (!Number.isInteger(block.lines) || block.lines < 1 || block.lines > 10)) throw new Error('feed lines must be 1 to 10');
      return;
    case 'qr':
      if (typeof block.data !== 'string' || block.data.length === 0 || block.data.length > 1000) throw new Error('qr data must be 1 to 1000 characters');
      if (block.moduleDots !== undefined && (!Number.isInteger(block.moduleDots) || block.moduleDots < 1 || block.moduleDots > 8)) throw new Error('qr moduleDots must be 1 to 8');
      return;
    case 'barcode':
      if (typeof block.data !== 'string' || !/^[\x20-\x7e]{1,40}$/.test(block.data)) throw new Error('barcode data must be 1 to 40 printable ASCII characters');
      if (block.heightDots !== undefined && (!Number.isInteger(block.heightDots) || block.heightDots < 1 || block.heightDots > 255)) throw new Error('barcode heightDots must be 1 to 255');
      return;
    case 'image':
      if (!Number.isInteger(block.image?.width) || !Number.isInteger(block.image?.height) || block.image.width < 1 || block.image.width > 576 || block.image.height < 1 || block.image.height > 1024) {
        throw new Error('image must be 1 to 576 dots wide and 1 to 1024 high');
      }
      decodeImageBits(block.image);
      return;
    default:
      throw new Error(`Unknown block kind ${JSON.stringify((block as { kind?: unknown }).kind)}`);
  }
}
