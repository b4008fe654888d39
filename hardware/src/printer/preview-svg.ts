import { code128BWidths, barcodeWidthSetting } from './code128.ts';
import {
  CHAR_HEIGHT_DOTS,
  CHAR_WIDTH_DOTS,
  COLUMNS,
  DEFAULT_BARCODE_HEIGHT_DOTS,
  DEFAULT_QR_MODULE_DOTS,
  PRINTABLE_DOTS,
  alignText,
  decodeImageBits,
  imageDotAt,
} from './document.ts';
import type { ReceiptBlock, ReceiptDocument } from './document.ts';
import { CUT_FEED_LINES, printableText, ruleText } from './escpos.ts';
import type { EscPosOptions } from './escpos.ts';
import { qrMatrix } from './qr-matrix.ts';

/**
 * Draws a receipt from its content model at printer resolution: one SVG unit is one printer dot
 * (203 dpi, 8 dots per mm), characters sit in the 12x24-dot cells of font A, and QR codes and
 * barcodes are drawn module by module from the same data the printer gets.
 */

const DOTS_PER_MM = 8;
const LINE_FEED_DOTS = 30;
const BORDER = 24;
const FONT_FAMILY = 'DejaVu Sans Mono, Menlo, Consolas, monospace';

interface Cursor {
  y: number;
  parts: string[];
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[character] ?? character);
}

/** Each run of non-space characters with an x position per character, so the grid is exact. */
function textRuns(line: string, left: number, cellWidth: number, baseline: number, attributes: string): string[] {
  const runs: string[] = [];
  const characters = Array.from(line);
  let index = 0;
  while (index < characters.length) {
    if (characters[index] === ' ') {
      index += 1;
      continue;
    }
    const start = index;
    while (index < characters.length && characters[index] !== ' ') index += 1;
    const xs = characters.slice(start, index).map((_, offset) => left + (start + offset) * cellWidth);
    runs.push(`<text x="${xs.join(' ')}" y="${baseline}" ${attributes}>${escapeXml(characters.slice(start, index).join(''))}</text>`);
  }
  return runs;
}

/** Horizontal runs of dark cells merged into rectangles, to keep the SVG small. */
function darkRuns(width: number, height: number, isDark: (x: number, y: number) => boolean, left: number, top: number, scale: number): string[] {
  const rects: string[] = [];
  for (let y = 0; y < height; y += 1) {
    let x = 0;
    while (x < width) {
      if (!isDark(x, y)) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < width && isDark(x, y)) x += 1;
      rects.push(`<rect x="${left + start * scale}" y="${top + y * scale}" width="${(x - start) * scale}" height="${scale}"/>`);
    }
  }
  return rects;
}

function drawBlock(cursor: Cursor, block: ReceiptBlock, document: ReceiptDocument, left: number, options: EscPosOptions): void {
  const columns = COLUMNS[document.paperWidth];
  const printable = PRINTABLE_DOTS[document.paperWidth];
  switch (block.kind) {
    case 'text':
    case 'rule': {
      const size = block.kind === 'text' ? (block.size ?? 1) : 1;
      const line =
        block.kind === 'rule'
          ? ruleText(block.style, columns)
          : alignText(printableText(block.text, document.codepage, options), columns / size, block.align ?? 'left');
      const bold = block.kind === 'text' && block.bold === true;
      const invert = block.kind === 'text' && block.invert === true;
      const cellWidth = CHAR_WIDTH_DOTS * size;
      const cellHeight = CHAR_HEIGHT_DOTS * size;
      if (invert) cursor.parts.push(`<rect x="${left}" y="${cursor.y}" width="${printable}" height="${cellHeight}"/>`);
      const attributes = `font-size="${20 * size}"${bold ? ' font-weight="bold"' : ''}${invert ? ' fill="#fff"' : ''}`;
      cursor.parts.push(...textRuns(line, left, cellWidth, cursor.y + 19 * size, attributes));
      cursor.y += Math.max(LINE_FEED_DOTS, cellHeight + 6);
      return;
    }
    case 'feed':
      cursor.y += LINE_FEED_DOTS * block.lines;
      return;
    case 'qr': {
      const matrix = qrMatrix(block.data);
      const moduleDots = block.moduleDots ?? DEFAULT_QR_MODULE_DOTS;
      const side = matrix.size * moduleDots;
      const x = left + Math.floor((printable - side) / 2);
      cursor.parts.push(`<g data-kind="qr">`, ...darkRuns(matrix.size, matrix.size, (column, row) => matrix.isDark(row, column), x, cursor.y, moduleDots), '</g>');
      cursor.y += side + LINE_FEED_DOTS;
      return;
    }
    case 'barcode': {
      const moduleDots = barcodeWidthSetting(block.data, printable) + 1;
      const widths = code128BWidths(block.data);
      const totalDots = widths.reduce((sum, width) => sum + width, 0) * moduleDots;
      const height = block.heightDots ?? DEFAULT_BARCODE_HEIGHT_DOTS;
      let x = left + Math.floor((printable - totalDots) / 2);
      const bars: string[] = [];
      widths.forEach((width, index) => {
        if (index % 2 === 0) bars.push(`<rect x="${x}" y="${cursor.y}" width="${width * moduleDots}" height="${height}"/>`);
        x += width * moduleDots;
      });
      cursor.parts.push(`<g data-kind="barcode">`, ...bars, '</g>');
      cursor.y += height + LINE_FEED_DOTS;
      return;
    }
    case 'image': {
      const { image } = block;
      const bits = decodeImageBits(image);
      const x = left + Math.floor((printable - image.width) / 2);
      cursor.parts.push(`<g data-kind="image">`, ...darkRuns(image.width, image.height, (px, py) => imageDotAt(bits, image, px, py), x, cursor.y, 1), '</g>');
      cursor.y += Math.ceil(image.height / 8) * 8;
      return;
    }
  }
}

export function renderReceiptSvg(document: ReceiptDocument, options: EscPosOptions = {}): string {
  const paperDots = document.paperWidth * DOTS_PER_MM;
  const margin = (paperDots - PRINTABLE_DOTS[document.paperWidth]) / 2;
  const left = BORDER + margin;
  const cursor: Cursor = { y: BORDER + 16, parts: [] };
  for (const block of document.blocks) drawBlock(cursor, block, document, left, options);
  if (document.cut !== 'none') cursor.y += CUT_FEED_LINES * LINE_FEED_DOTS;
  const paperBottom = cursor.y + 8;
  const width = paperDots + BORDER * 2;
  const height = paperBottom + BORDER + (document.openCashDrawer === true ? 28 : 0);
  const notes: string[] = [];
  if (document.cut !== 'none') {
    notes.push(
      `<line x1="${BORDER}" y1="${paperBottom}" x2="${BORDER + paperDots}" y2="${paperBottom}" stroke="#888" stroke-width="2" stroke-dasharray="8 6"/>`,
      `<text x="${BORDER + paperDots - 4}" y="${paperBottom - 6}" font-size="14" fill="#888" text-anchor="end">${document.cut} cut</text>`,
    );
  }
  if (document.openCashDrawer === true) notes.push(`<text x="${BORDER}" y="${paperBottom + BORDER + 14}" font-size="16" fill="#555">cash drawer opens</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="#e6e6e6"/>`,
    `<rect x="${BORDER}" y="${BORDER}" width="${paperDots}" height="${paperBottom - BORDER}" fill="#fff"/>`,
    `<g font-family="${FONT_FAMILY}" fill="#000" xml:space="preserve">`,
    ...cursor.parts,
    '</g>',
    ...notes,
    '</svg>',
    '',
  ].join('\n');
}
