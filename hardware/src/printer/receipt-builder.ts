import { COLUMNS, twoColumns, wrapText } from './document.ts';
import type { Alignment, MonochromeImage, PaperWidth, ReceiptBlock, ReceiptDocument } from './document.ts';

/** Builds a receipt line by line, fitting every line to the paper so the model is always printable. */
export class ReceiptBuilder {
  readonly columns: number;
  readonly #blocks: ReceiptBlock[] = [];

  constructor(
    readonly paperWidth: PaperWidth,
    readonly codepage: string,
  ) {
    this.columns = COLUMNS[paperWidth];
  }

  /** Wrapped text; every resulting line keeps the alignment and style. */
  text(text: string, style: { align?: Alignment; bold?: boolean; invert?: boolean } = {}): this {
    // A line that fits keeps its spaces (indentation); only longer text is re-flowed.
    const lines = Array.from(text).length <= this.columns && !text.includes('\n') ? [text] : wrapText(text, this.columns);
    for (const line of lines) this.#blocks.push({ kind: 'text', text: line, ...style });
    return this;
  }

  /** Double-size text when it fits in half the columns, otherwise bold normal-size text. */
  big(text: string, style: { align?: Alignment; invert?: boolean } = {}): this {
    const align = style.align ?? 'center';
    if (Array.from(text).length <= this.columns / 2) {
      this.#blocks.push({ kind: 'text', text, size: 2, bold: true, align, ...(style.invert ? { invert: true } : {}) });
      return this;
    }
    return this.text(text, { align, bold: true, ...(style.invert ? { invert: true } : {}) });
  }

  /**
   * Label on the left, value on the right. A value too long to share its line with the label goes
   * under it, whole and right-aligned: a reference cut short ("Wallet~ wtx_...") helps nobody.
   */
  row(left: string, right: string, style: { bold?: boolean } = {}): this {
    if (Array.from(left).length + Array.from(right).length + 1 <= this.columns) {
      this.#blocks.push({ kind: 'text', text: twoColumns(left, right, this.columns), ...style });
      return this;
    }
    this.text(left, style);
    return this.text(right, { ...style, align: 'right' });
  }

  rule(style: 'single' | 'double' = 'single'): this {
    this.#blocks.push({ kind: 'rule', style });
    return this;
  }

  feed(lines = 1): this {
    this.#blocks.push({ kind: 'feed', lines });
    return this;
  }

  qr(data: string, moduleDots?: number): this {
    this.#blocks.push({ kind: 'qr', data, ...(moduleDots === undefined ? {} : { moduleDots }) });
    return this;
  }

  /** Code 128 of the data with the same data printed under it for people. */
  barcode(data: string): this {
    this.#blocks.push({ kind: 'barcode', data, heightDots: 64 });
    return this.text(data, { align: 'center' });
  }

  image(image: MonochromeImage): this {
    this.#blocks.push({ kind: 'image', image });
    return this;
  }

  build(options: { cut?: ReceiptDocument['cut']; openCashDrawer?: boolean } = {}): ReceiptDocument {
    const document: ReceiptDocument = { paperWidth: this.paperWidth, codepage: this.codepage, blocks: [...this.#blocks], cut: options.cut ?? 'partial' };
    if (options.openCashDrawer === true) document.openCashDrawer = true;
    return document;
  }
}
