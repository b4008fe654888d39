import ReceiptPrinterEncoder from '@point-of-sale/receipt-printer-encoder';
import { barcodeWidthSetting } from './code128.ts';
import {
  COLUMNS,
  DEFAULT_BARCODE_HEIGHT_DOTS,
  DEFAULT_QR_MODULE_DOTS,
  PRINTABLE_DOTS,
  alignText,
  decodeImageBits,
  imageDotAt,
} from './document.ts';
import type { MonochromeImage, ReceiptBlock, ReceiptDocument } from './document.ts';

/** Blank lines fed before the cut so the last line clears the cutter, which sits above the head. */
export const CUT_FEED_LINES = 4;

type CodepageMappingName = NonNullable<ConstructorParameters<typeof ReceiptPrinterEncoder>[0]>['codepageMapping'];
type Codepage = Parameters<ReceiptPrinterEncoder['codepage']>[0];

export interface EscPosOptions {
  /** Which code page numbers the printer uses; "epson" fits most ESC/POS clones. */
  codepageMapping?: CodepageMappingName;
  /** Drawer kick-out connector pin the drawer's solenoid is wired to (default 2). */
  drawerPin?: DrawerPin;
}

/** The two outputs of the drawer kick-out connector (ESC p m: m=0 is pin 2, m=1 is pin 5). */
export type DrawerPin = 2 | 5;

/**
 * ESC p m t1 t2: pulse on for t1 x 2 ms, then off for t2 x 2 ms. 50 ms drives a drawer's
 * solenoid; the long off time keeps the duty cycle far below the 20% printers allow.
 */
export const DRAWER_PULSE_ON_MS = 50;
export const DRAWER_PULSE_OFF_MS = 500;

function drawerPinSelector(pin: DrawerPin = 2): 0 | 1 {
  return pin === 5 ? 1 : 0;
}

function newEncoder(document: Pick<ReceiptDocument, 'paperWidth' | 'codepage'>, options: EscPosOptions): ReceiptPrinterEncoder {
  return new ReceiptPrinterEncoder({
    language: 'esc-pos',
    columns: COLUMNS[document.paperWidth],
    codepageMapping: options.codepageMapping ?? 'epson',
    imageMode: 'raster',
    feedBeforeCut: 0,
  });
}

/** The text a line will really print: characters the code page lacks become "?", as on paper. */
export function printableText(text: string, codepage: string, options: EscPosOptions = {}): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const encoder = newEncoder({ paperWidth: 80, codepage }, options);
  encoder.codepage(codepage as Codepage);
  encoder.text(text);
  const bytes = encoder
    .encode('lines')
    .flat()
    .filter((command): command is { type: string; payload: number[] } => (command as { type?: string }).type === 'text')
    .flatMap((command) => command.payload);
  const characters = Array.from(text);
  if (bytes.length !== characters.length) return text;
  return characters.map((character, index) => (bytes[index] === 0x3f && character !== '?' ? '?' : character)).join('');
}

function imageAsRgba(image: MonochromeImage): { data: Uint8ClampedArray; width: number; height: number } {
  const bits = decodeImageBits(image);
  const data = new Uint8ClampedArray(image.width * image.height * 4);
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      const value = imageDotAt(bits, image, x, y) ? 0 : 255;
      const offset = (y * image.width + x) * 4;
      data[offset] = value;
      data[offset + 1] = value;
      data[offset + 2] = value;
      data[offset + 3] = 255;
    }
  }
  return { data, width: image.width, height: image.height };
}

/** The text of a rule: we print rules as characters so the preview can show the same ones. */
export function ruleText(style: 'single' | 'double' | undefined, columns: number): string {
  return (style === 'double' ? '=' : '-').repeat(columns);
}

function addBlock(encoder: ReceiptPrinterEncoder, block: ReceiptBlock, document: ReceiptDocument, options: EscPosOptions): void {
  const columns = COLUMNS[document.paperWidth];
  switch (block.kind) {
    case 'text': {
      const size = block.size ?? 1;
      const line = alignText(printableText(block.text, document.codepage, options), columns / size, block.align ?? 'left');
      encoder.bold(block.bold ?? false).invert(block.invert ?? false).size(size, size).line(line).size(1, 1).invert(false).bold(false);
      return;
    }
    case 'rule':
      encoder.line(ruleText(block.style, columns));
      return;
    case 'feed':
      encoder.newline(block.lines);
      return;
    case 'qr':
      encoder.align('center').qrcode(block.data, { model: 2, size: block.moduleDots ?? DEFAULT_QR_MODULE_DOTS, errorlevel: 'm' }).align('left');
      return;
    case 'barcode': {
      const width = barcodeWidthSetting(block.data, PRINTABLE_DOTS[document.paperWidth]);
      encoder.align('center').barcode(block.data, 'code128', { height: block.heightDots ?? DEFAULT_BARCODE_HEIGHT_DOTS, width, text: 'none' }).align('left');
      return;
    }
    case 'image':
      encoder.align('center').image(imageAsRgba(block.image), { width: block.image.width, height: block.image.height, algorithm: 'threshold', threshold: 128 }).align('left');
      return;
  }
}

/** ESC/POS bytes of a receipt, built by @point-of-sale/receipt-printer-encoder. */
export function encodeReceipt(document: ReceiptDocument, options: EscPosOptions = {}): Uint8Array {
  const encoder = newEncoder(document, options);
  // An unknown code page throws here, before anything is queued: retrying would not fix it.
  encoder.initialize().codepage(document.codepage as Codepage);
  // Kick the drawer first: it opens while the receipt prints instead of after.
  if (document.openCashDrawer === true) encoder.pulse(drawerPinSelector(options.drawerPin), DRAWER_PULSE_ON_MS, DRAWER_PULSE_OFF_MS);
  for (const block of document.blocks) addBlock(encoder, block, document, options);
  if (document.cut !== 'none') encoder.newline(CUT_FEED_LINES).cut(document.cut);
  return encoder.encode();
}

/**
 * Only the drawer kick, ESC p m t1 t2, for openDrawer(). Nothing in front of it: the kick
 * depends on no printer mode, and every receipt starts with its own ESC @ anyway.
 */
export function encodeDrawerPulse(pin: DrawerPin = 2): Uint8Array {
  return Uint8Array.of(0x1b, 0x70, drawerPinSelector(pin), DRAWER_PULSE_ON_MS / 2, DRAWER_PULSE_OFF_MS / 2);
}
