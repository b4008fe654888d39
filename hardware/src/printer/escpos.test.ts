import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import ReceiptPrinterEncoder from '@point-of-sale/receipt-printer-encoder';
import { code128BSymbols, code128BWidths, code128ModuleCount, barcodeWidthSetting } from './code128.ts';
import { codepageForLanguage } from './codepages.ts';
import { alignText, monochromeImage, twoColumns, wrapText, decodeImageBits, imageDotAt } from './document.ts';
import type { ReceiptDocument } from './document.ts';
import { encodeDrawerPulse, encodeReceipt, printableText } from './escpos.ts';
import { renderReceiptSvg } from './preview-svg.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('ESC/POS encoding of the content model', () => {
  it('produces the same bytes as driving the encoder by hand', () => {
    const document: ReceiptDocument = {
      paperWidth: 58,
      codepage: 'cp858',
      cut: 'full',
      openCashDrawer: true,
      blocks: [
        { kind: 'text', text: 'Hello', align: 'center', bold: true },
        { kind: 'rule' },
        { kind: 'qr', data: 'https://pay.tapline.test/tap/TG1A2B3C4D', moduleDots: 4 },
      ],
    };
    const expected = new ReceiptPrinterEncoder({ language: 'esc-pos', columns: 32, codepageMapping: 'epson', imageMode: 'raster', feedBeforeCut: 0 })
      .initialize()
      .codepage('cp858')
      .pulse(0, 50, 500)
      .bold(true)
      .line('             Hello              ')
      .bold(false)
      .line('-'.repeat(32))
      .align('center')
      .qrcode('https://pay.tapline.test/tap/TG1A2B3C4D', { model: 2, size: 4, errorlevel: 'm' })
      .align('left')
      .newline(4)
      .cut('full')
      .encode();
    assert.equal(hex(encodeReceipt(document)), hex(expected));
    // ESC @ first, the drawer kick (ESC p 0 25 250) before the text, the cut (GS V 0) at the end.
    assert.equal(hex(encodeReceipt(document).subarray(0, 2)), '1b40');
    const bytes = hex(encodeReceipt(document));
    assert.ok(bytes.indexOf('1b700019fa') > 0 && bytes.indexOf('1b700019fa') < bytes.indexOf(hex(Buffer.from('Hello'))), bytes);
    assert.ok(hex(encodeReceipt(document, { drawerPin: 5 })).includes('1b700119fa'), 'the configured pin (5: m=1) is kicked');
    assert.equal(hex(encodeReceipt({ ...document, openCashDrawer: false })).includes('1b70'), false, 'no kick unless the document asks');
    assert.equal(hex(encodeReceipt(document)).slice(-10), '1d56000a0d'.slice(-10));
  });

  it('prints characters outside the code page as "?" and says so in advance', () => {
    assert.equal(printableText('Café Ñ €5', 'cp858'), 'Café Ñ €5');
    assert.equal(printableText('₦500 ẹ', 'cp858'), '?500 ?');
    assert.equal(printableText('plain ASCII', 'cp437'), 'plain ASCII');
    assert.equal(codepageForLanguage('fr-SN'), 'cp858');
    assert.equal(codepageForLanguage('pt_AO'), 'cp860');
    assert.equal(codepageForLanguage('xx'), 'cp858');
  });

  it('refuses an unknown code page before anything is printed', () => {
    assert.throws(() => encodeReceipt({ paperWidth: 80, codepage: 'klingon', cut: 'none', blocks: [] }), /Unknown codepage/);
  });

  it('kicks the drawer on its own with exactly ESC p m t1 t2: 50 ms on, 500 ms off', () => {
    assert.deepEqual([...encodeDrawerPulse()], [0x1b, 0x70, 0x00, 0x19, 0xfa], 'pin 2 is the default');
    assert.deepEqual([...encodeDrawerPulse(2)], [0x1b, 0x70, 0x00, 0x19, 0xfa]);
    assert.deepEqual([...encodeDrawerPulse(5)], [0x1b, 0x70, 0x01, 0x19, 0xfa]);
  });
});

describe('text fitting', () => {
  it('aligns, pads and cuts to the column count', () => {
    assert.equal(alignText('ab', 6, 'right'), '    ab');
    assert.equal(alignText('ab', 6, 'center'), '  ab  ');
    assert.equal(alignText('abcdefgh', 6), 'abcdef');
    assert.equal(twoColumns('Total', '12.50', 16), 'Total      12.50');
    assert.equal(twoColumns('A very long item name', '1,000.00', 20), 'A very lon~ 1,000.00');
    assert.deepEqual(wrapText('one two three four', 9), ['one two', 'three', 'four']);
    assert.deepEqual(wrapText('gc_0123456789abcdef', 8), ['gc_01234', '56789abc', 'def']);
  });

  it('packs 1-bit images most significant bit first', () => {
    const image = monochromeImage(10, 2, (x, y) => x === y || x === 9);
    const bits = decodeImageBits(image);
    assert.deepEqual(Array.from(bits), [0x80, 0x40, 0x40, 0x40]);
    assert.equal(imageDotAt(bits, image, 9, 1), true);
    assert.equal(imageDotAt(bits, image, 8, 1), false);
  });
});

describe('Code 128 for the preview', () => {
  it('computes symbols with the mod-103 checksum and 11-module symbols', () => {
    // Start B 104 + P(48)*1 + J(42)*2 + J(42)*3 + 1(17)*4 + 2(18)*5 + 3(19)*6 + C(35)*7 = 879; 879 mod 103 = 55.
    const symbols = code128BSymbols('PJJ123C');
    assert.deepEqual(symbols, [104, 48, 42, 42, 17, 18, 19, 35, 55, 106]);
    assert.equal(code128ModuleCount('PJJ123C'), 11 * 9 + 13);
    assert.equal(code128BWidths('A').length, 6 * 3 + 7);
    assert.equal(barcodeWidthSetting('R-000123', 384), 2);
    assert.throws(() => code128BSymbols('é'), /cannot encode/);
  });
});

describe('SVG preview', () => {
  it('draws each character in its 12-dot cell, bold and inverted lines, and rules as characters', () => {
    const svg = renderReceiptSvg({
      paperWidth: 58,
      codepage: 'cp858',
      cut: 'none',
      blocks: [
        { kind: 'text', text: 'A B', bold: true },
        { kind: 'text', text: 'PAID', invert: true, align: 'right' },
        { kind: 'rule', style: 'double' },
        { kind: 'text', text: 'Price ₦5' },
      ],
    });
    // 24 border + 40 margin = 64: "A" at 64, "B" two cells later at 88.
    assert.ok(svg.includes('<text x="64" y="59" font-size="20" font-weight="bold">A</text>'), svg);
    assert.ok(svg.includes('<text x="88" y="59" font-size="20" font-weight="bold">B</text>'));
    assert.ok(svg.includes('<rect x="64" y="70" width="384" height="24"/>'));
    assert.ok(svg.includes(`>${'='.repeat(32)}</text>`));
    assert.ok(svg.includes('>?5</text>'), 'the naira sign prints as ? in cp858, and the preview says so');
    assert.ok(!svg.includes('cut</text>'));
  });
});
