import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COLUMNS, validateReceiptDocument } from './document.ts';
import type { ReceiptDocument, TextBlock } from './document.ts';
import { encodeReceipt } from './escpos.ts';
import { layoutReceipt } from './layouts.ts';
import type { ReceiptInput } from './layouts.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from './samples.ts';
import { VirtualPrinter } from './virtual-printer.ts';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/hardware/', import.meta.url));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const KINDS = Object.keys(SAMPLE_RECEIPTS) as Array<ReceiptInput['kind']>;

function texts(document: ReceiptDocument): string[] {
  return document.blocks.filter((block): block is TextBlock => block.kind === 'text').map((block) => block.text);
}

function sample(kind: ReceiptInput['kind'], paperWidth: 58 | 80 = 80): ReceiptDocument {
  return layoutReceipt(SAMPLE_MERCHANT, sampleSettings(paperWidth), SAMPLE_RECEIPTS[kind]);
}

describe('receipt layouts', () => {
  for (const paperWidth of [58, 80] as const) {
    it(`fit every line of all eight receipts on ${paperWidth} mm paper`, () => {
      for (const kind of KINDS) {
        const document = sample(kind, paperWidth);
        // The model survives JSON (the bridge and the queue carry it) and passes validation.
        assert.deepEqual(validateReceiptDocument(JSON.parse(JSON.stringify(document))), document);
        for (const block of document.blocks) {
          if (block.kind === 'text') assert.ok(Array.from(block.text).length <= COLUMNS[paperWidth] / (block.size ?? 1), `${kind}: ${block.text}`);
        }
        assert.ok(encodeReceipt(document).length > 200, kind);
      }
    });
  }

  it('formats amounts from minor units per currency', () => {
    const pos = texts(sample('pos-payment'));
    assert.ok(pos.some((line) => line.includes('PAID NGN 12,500.00')), pos.join('\n'));
    const xof = layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(58), language: 'en-SN' }, { ...(SAMPLE_RECEIPTS['pos-payment'] as Extract<ReceiptInput, { kind: 'pos-payment' }>), amountMinor: 5000, currency: 'XOF' });
    assert.ok(texts(xof).some((line) => line.includes('XOF 5,000') && !line.includes('5,000.')), texts(xof).join('\n'));
    const tnd = layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...(SAMPLE_RECEIPTS['pos-payment'] as Extract<ReceiptInput, { kind: 'pos-payment' }>), amountMinor: 1250125, currency: 'TND' });
    assert.ok(texts(tnd).some((line) => line.includes('PAID TND 1,250.125')), texts(tnd).join('\n'));
  });

  it('adds up a store sale, pays it, gives change and opens the drawer for cash', () => {
    const document = sample('store-sale');
    const lines = texts(document);
    assert.ok(lines.some((line) => /^Subtotal +17,600\.00$/.test(line)), lines.join('\n'));
    assert.ok(lines.some((line) => /^Discount +-500\.00$/.test(line)));
    assert.ok(lines.some((line) => line.includes('TOTAL NGN 17,100.00')));
    assert.ok(lines.some((line) => /^Change +900\.00$/.test(line)));
    assert.ok(lines.includes('  ref gc_7f3a9b2c1d'), 'indentation is kept');
    assert.equal(document.openCashDrawer, true);
    assert.ok(document.blocks.some((block) => block.kind === 'barcode' && block.data === 'R-000123'));
  });

  it('prints a till sale (cash) itemised with its tender, the cash tendered and the change, and leaves the drawer to the kiosk', () => {
    const document = sample('till-sale', 58);
    const lines = texts(document);
    for (const expected of [/^SALE$/, /^Receipt +7c1e4b2a-9d3$/, /^Cashier +Tunde$/, /^Cart discount +-50\.00$/, /^TOTAL +NGN 3,386\.95$/, /^Cash +3,386\.95$/, /^Cash tendered +4,000\.00$/, /^Change +613\.05$/]) {
      assert.ok(lines.some((line) => expected.test(line)), `${expected}:\n${lines.join('\n')}`);
    }
    assert.equal(document.openCashDrawer, undefined, 'the kiosk opens the drawer itself (openDrawer, once per sale)');
    const french = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, SAMPLE_RECEIPTS['till-sale']));
    assert.ok(french.some((line) => /^Espèces reçues +4 000,00$/.test(line)), french.join('\n'));
    assert.ok(french.some((line) => /^Rendu +613,05$/.test(line)), french.join('\n'));
  });

  it('puts the gift card code in a QR code and in words', () => {
    const document = sample('gift-card-sale', 58);
    const code = (SAMPLE_RECEIPTS['gift-card-sale'] as Extract<ReceiptInput, { kind: 'gift-card-sale' }>).code;
    assert.ok(document.blocks.some((block) => block.kind === 'qr' && block.data === code));
    assert.ok(texts(document).join('').replace(/\s/g, '').includes(code));
  });

  it('marks an offline payment OFFLINE - PENDING SYNC, inverted, at the top and bottom', () => {
    for (const paperWidth of [58, 80] as const) {
      const marks = sample('offline-payment', paperWidth).blocks.filter((block) => block.kind === 'text' && block.text === 'OFFLINE - PENDING SYNC');
      assert.equal(marks.length, 2);
      assert.ok(marks.every((block) => block.kind === 'text' && block.invert === true && block.bold === true));
      // Double size where it fits (80 mm: 24 columns at double width).
      assert.ok(marks.every((block) => block.kind === 'text' && (block.size ?? 1) === (paperWidth === 80 ? 2 : 1)));
    }
  });

  it('shows refunds negative and the end-of-day totals per method, offline count and sync state', () => {
    assert.ok(texts(sample('refund')).some((line) => line.includes('REFUND -NGN 1,200.00')), texts(sample('refund')).join('\n'));
    const report = texts(sample('end-of-day'));
    assert.ok(report.some((line) => /^Cash \(42\) +184,500\.00$/.test(line)), report.join('\n'));
    assert.ok(report.some((line) => /^Tap \(NFC\) \(57\) +312,750\.00$/.test(line)));
    assert.ok(report.some((line) => /^Gross \(115\) +611,750\.00$/.test(line)));
    assert.ok(report.some((line) => line.includes('NET NGN 609,350.00')));
    assert.ok(report.some((line) => /^Taken offline \(3\) +10,500\.00$/.test(line)));
    assert.ok(report.some((line) => /^State +Sync pending$/.test(line)));
  });

  it('prints a shift\'s float, cash in and out, the expected cash, the blind count and the variance in words', () => {
    const report = texts(sample('shift-report'));
    assert.ok(report.includes('SHIFT REPORT'), report.join('\n'));
    assert.ok(report.some((line) => /^Cashier +Tunde$/.test(line)));
    assert.ok(report.some((line) => /^Float +20,000\.00$/.test(line)));
    assert.ok(report.some((line) => /^Cash sales +84,500\.00$/.test(line)));
    assert.ok(report.some((line) => /^Cash refunds +-1,200\.00$/.test(line)));
    assert.ok(report.some((line) => /^Paid in +5,000\.00$/.test(line)));
    assert.ok(report.some((line) => /^Paid out +-2,500\.00$/.test(line)));
    assert.ok(report.some((line) => /^No sales \(drawer opened\) +1$/.test(line)));
    assert.ok(report.some((line) => /^Expected +105,800\.00$/.test(line)));
    assert.ok(report.some((line) => /^Counted +105,750\.00$/.test(line)));
    assert.ok(report.some((line) => /^VARIANCE +-NGN 50\.00$/.test(line) || line === 'VARIANCE -NGN 50.00'), report.join('\n'));
    assert.ok(report.includes('SHORT'));
    const french = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, SAMPLE_RECEIPTS['shift-report']));
    assert.ok(french.includes('RAPPORT DE SERVICE') && french.includes('MANQUE'), french.join('\n'));
  });
});

describe('receipts in the terminal\'s language', () => {
  const pos = SAMPLE_RECEIPTS['pos-payment'] as Extract<ReceiptInput, { kind: 'pos-payment' }>;

  for (const language of ['fr', 'pt', 'sw'] as const) {
    it(`fit every line of all eight receipts in ${language} on 58 and 80 mm paper, with no English left`, () => {
      for (const paperWidth of [58, 80] as const) {
        for (const kind of KINDS) {
          const english = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(paperWidth), SAMPLE_RECEIPTS[kind]));
          const document = layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(paperWidth), language }, SAMPLE_RECEIPTS[kind]);
          for (const block of document.blocks) {
            if (block.kind === 'text') assert.ok(Array.from(block.text).length <= COLUMNS[paperWidth] / (block.size ?? 1), `${language} ${kind}: ${block.text}`);
          }
          for (const phrase of ['Thank you!', 'Powered by Tapline', 'PAYMENT RECEIPT', 'OFFLINE - PENDING SYNC', 'Keep this receipt safe', 'END OF DAY']) {
            if (english.some((line) => line.includes(phrase))) assert.ok(!texts(document).some((line) => line.includes(phrase)), `${language} ${kind} still says ${phrase}`);
          }
          assert.ok(encodeReceipt(document).length > 200, `${language} ${kind}`);
        }
      }
    });
  }

  it('prints French words and the French money format ("1 250,00 NGN", UGX without decimals, TND with three)', () => {
    const lines = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr-SN' }, pos));
    assert.ok(lines.some((line) => line.includes('REÇU DE PAIEMENT')), lines.join('\n'));
    assert.ok(lines.some((line) => line.includes('PAYÉ 12 500,00 NGN')), lines.join('\n'));
    assert.ok(lines.some((line) => /^Moyen +Sans contact \(NFC\)$/.test(line)), lines.join('\n'));
    assert.ok(lines.includes('Merci !') || lines.some((line) => line.trim() === 'Merci !'), lines.join('\n'));
    const ugx = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, { ...pos, amountMinor: 150000, currency: 'UGX' }));
    assert.ok(ugx.some((line) => line.includes('PAYÉ 150 000 UGX')), ugx.join('\n'));
    const tnd = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, { ...pos, amountMinor: 1250125, currency: 'TND' }));
    assert.ok(tnd.some((line) => line.includes('1 250,125 TND')), tnd.join('\n'));
    // Intl's non-breaking spaces never reach the printer (its code page would print "?").
    assert.ok(lines.every((line) => !/[\u00a0\u202f]/.test(line)));
    const store = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, SAMPLE_RECEIPTS['store-sale']));
    assert.ok(store.some((line) => /^Sous-total +17 600,00$/.test(line)), store.join('\n'));
    const report = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, SAMPLE_RECEIPTS['end-of-day']));
    assert.ok(report.some((line) => /^Espèces \(42\) +184 500,00$/.test(line)), report.join('\n'));
    assert.ok(report.some((line) => /^État +Synchro en attente$/.test(line)), report.join('\n'));
  });

  it('prints Portuguese on its own code page, and English for a language without a catalogue', () => {
    const portuguese = layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'pt-MZ' }, pos);
    assert.equal(portuguese.codepage, 'cp860');
    assert.ok(texts(portuguese).some((line) => line.includes('RECIBO DE PAGAMENTO')));
    assert.ok(texts(portuguese).some((line) => line.includes('PAGO NGN 12.500,00')), texts(portuguese).join('\n'));
    const german = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'de' }, pos));
    assert.ok(german.some((line) => line.includes('PAYMENT RECEIPT')));
  });
});

describe('what a terminal prints', () => {
  const pos = SAMPLE_RECEIPTS['pos-payment'] as Extract<ReceiptInput, { kind: 'pos-payment' }>;

  it('prints a long wallet reference whole under its label instead of cutting the label', () => {
    for (const paperWidth of [58, 80] as const) {
      const walletRef = 'wtx_pos_0f1e2d3c4b5a69788796a5b4c3d2e1f0';
      const lines = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(paperWidth), { ...pos, walletRef }));
      assert.ok(!lines.some((line) => line.includes('~')), lines.join('\n'));
      const label = lines.findIndex((line) => line === 'Wallet ref');
      assert.ok(label >= 0, lines.join('\n'));
      // Right-aligned on the lines under the label (one at 80 mm, two at 58 mm).
      assert.ok(lines.slice(label + 1).join('').replace(/\s+/g, '').startsWith(`${walletRef}Session`), lines.join('\n'));
    }
  });

  it('names how a POS payment was paid and marks a reprint as a copy', () => {
    const byTap = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), pos));
    assert.ok(byTap.some((line) => /^Method +Tap \(NFC\)$/.test(line)));
    assert.ok(!byTap.includes('COPY - REPRINTED'));
    const byQr = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...pos, method: 'qr', reprint: true }));
    assert.ok(byQr.some((line) => /^Method +QR$/.test(line)), byQr.join('\n'));
    assert.ok(byQr.includes('COPY - REPRINTED'));
    const offline = SAMPLE_RECEIPTS['offline-payment'] as Extract<ReceiptInput, { kind: 'offline-payment' }>;
    assert.ok(texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(58), { ...offline, reprint: true })).includes('COPY - REPRINTED'));
  });

  it('keeps one preview per job: two receipts of one kind do not overwrite each other', async () => {
    const printer = new VirtualPrinter({ previewDirectory: ARTIFACTS, png: false });
    await printer.print(sample('pos-payment'), { jobId: 'pos-a', label: 'pos-payment' });
    await printer.print(sample('pos-payment'), { jobId: 'pos-b', label: 'pos-payment' });
    const [first, second] = printer.jobs.map((job) => job.files.svg ?? '');
    assert.ok(first?.endsWith('pos-payment-pos-a.svg') && second?.endsWith('pos-payment-pos-b.svg'), `${first} ${second}`);
    assert.ok(readFileSync(first!, 'utf8').length > 0 && readFileSync(second!, 'utf8').length > 0);
  });
});

describe('virtual printer previews of the eight layouts', () => {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  for (const kind of KINDS) {
    for (const paperWidth of [58, 80] as const) {
      it(`renders ${kind} at ${paperWidth} mm as SVG and PNG in test-artifacts/hardware`, async () => {
        const printer = new VirtualPrinter({ previewDirectory: ARTIFACTS });
        const document = sample(kind, paperWidth);
        const result = await printer.print(document, { jobId: `${kind}-${paperWidth}`, label: `${kind}-${paperWidth}mm` });
        assert.equal(result.state, 'printed');
        const job = printer.jobs[0];
        assert.ok(job);
        assert.deepEqual(Buffer.from(job.bytes), Buffer.from(encodeReceipt(document)));
        assert.deepEqual(readFileSync(job.files.bin ?? ''), Buffer.from(job.bytes));
        const svg = readFileSync(job.files.svg ?? '', 'utf8');
        assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="\d+"/);
        assert.ok(svg.includes('>Mama</text>'), 'merchant name is drawn');
        if (document.blocks.some((block) => block.kind === 'qr')) assert.ok(svg.includes('data-kind="qr"'));
        if (document.blocks.some((block) => block.kind === 'barcode')) assert.ok(svg.includes('data-kind="barcode"'));
        assert.equal(job.files.pngUnavailable, undefined, `PNG preview needs rsvg-convert (apt install librsvg2-bin): ${job.files.pngUnavailable}`);
        const png = readFileSync(job.files.png ?? '');
        assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
        // IHDR width: paper width at 8 dots per mm plus the 24-dot border on both sides.
        assert.equal(png.readUInt32BE(16), paperWidth * 8 + 48);
      });
    }
  }
});

describe('itemised receipts from the till\'s cart', () => {
  const pos = SAMPLE_RECEIPTS['pos-payment'] as Extract<ReceiptInput, { kind: 'pos-payment' }>;
  const offline = SAMPLE_RECEIPTS['offline-payment'] as Extract<ReceiptInput, { kind: 'offline-payment' }>;
  // Jollof 2 x 1,500.00 with 100.00 off, 7.5 % included; Malt 1 x 500.00, 7.5 % added; a bag, no tax; 50.00 off the cart.
  const cart = {
    lines: [
      { productId: 'prod_j', name: 'Jollof rice', quantity: 2, unitPrice: 150_000, discount: 10_000, taxRate: 750, taxInclusive: true },
      { productId: 'prod_m', name: 'Malt', quantity: 1, unitPrice: 50_000, discount: 0, taxRate: 750, taxInclusive: false },
      { productId: null, name: 'Bag', quantity: 1, unitPrice: 5_000, discount: 0, taxRate: 0, taxInclusive: true },
    ],
    discount: 5_000,
  };

  it('prints lines, quantities, discounts, taxes by rate and the total of shared/src/cart.ts', () => {
    for (const paperWidth of [58, 80] as const) {
      const document = layoutReceipt(SAMPLE_MERCHANT, sampleSettings(paperWidth), { ...pos, description: '', amountMinor: 343_696, cart });
      const lines = texts(document);
      for (const block of document.blocks) if (block.kind === 'text') assert.ok(Array.from(block.text).length <= COLUMNS[paperWidth] / (block.size ?? 1), block.text);
      assert.ok(lines.includes('Jollof rice'), lines.join('\n'));
      assert.ok(lines.some((line) => /^ {2}2 x 1,500\.00 +3,000\.00$/.test(line)), lines.join('\n'));
      assert.ok(lines.some((line) => /^ {2}Discount +-100\.00$/.test(line)), lines.join('\n'));
      assert.ok(lines.some((line) => /^Subtotal +3,550\.00$/.test(line)), lines.join('\n'));
      assert.ok(lines.some((line) => /^Cart discount +-50\.00$/.test(line)), lines.join('\n'));
      // One rate, included on one line and added on another: a row each (the cart discount shared first).
      assert.ok(lines.some((line) => /^Tax 7\.5 % \(incl\.\) +199\.39$/.test(line)), lines.join('\n'));
      assert.ok(lines.some((line) => /^Tax 7\.5 % \(added\) +36\.96$/.test(line)), lines.join('\n'));
      assert.ok(lines.some((line) => /PAID +NGN 3,436\.96/.test(line)), lines.join('\n'));
      assert.ok(lines.some((line) => /^Method +Tap \(NFC\)$/.test(line)));
    }
  });

  it('marks an included tax, and prints an offline cart sale as OFFLINE - PENDING SYNC in French', () => {
    const inclusive = { lines: [cart.lines[0]!], discount: 0 };
    const lines = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...pos, amountMinor: 290_000, cart: inclusive }));
    assert.ok(lines.some((line) => /^Tax 7\.5 % \(incl\.\) +202\.33$/.test(line)), lines.join('\n'));
    const french = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(80), language: 'fr' }, { ...offline, amountMinor: 290_000, cart: inclusive }));
    assert.ok(french.some((line) => /^Taxe 7,5 % \(incl\.\) +202,33$/.test(line)), french.join('\n'));
    for (const [language, added] of [['fr', 'Taxe 7,5 % \\(en sus\\) +36,96'], ['pt', 'Imposto 7,5 % \\(acrescido\\) +36,96'], ['sw', 'Kodi 7.5 % \\(imeongezwa\\) +36.96']] as const) {
      const printed = texts(layoutReceipt(SAMPLE_MERCHANT, { ...sampleSettings(58), language }, { ...pos, amountMinor: 343_696, cart }));
      assert.ok(printed.some((line) => new RegExp(`^${added}$`).test(line)), printed.join('\n'));
    }
    assert.ok(french.some((line) => /^ {2}2 x 1 500,00 +3 000,00$/.test(line)), french.join('\n'));
    assert.ok(french.filter((line) => line === 'HORS LIGNE - EN ATTENTE' || line.includes('HORS LIGNE')).length >= 2, french.join('\n'));
  });

  it('refuses a cart whose lines are malformed rather than print wrong numbers', () => {
    assert.throws(() => layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...pos, cart: { lines: [{ ...cart.lines[0]!, quantity: 0 }], discount: 0 } }), /quantity/);
  });

  it('prints an X report marked as running and a numbered Z report with online, declined, gift cards, taxes and oversold products', () => {
    const base = SAMPLE_RECEIPTS['end-of-day'] as Extract<ReceiptInput, { kind: 'end-of-day' }>;
    const extra = { online: { count: 5, amountMinor: 200_000 }, declinedOffline: { count: 1, amountMinor: 9_900 }, giftCardsSold: { count: 2, amountMinor: 1_000_000 }, taxes: [{ rate: 750, taxableMinor: 100_000, taxMinor: 7_500 }], oversold: [{ name: 'Malt', stock: -2 }] };
    const x = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(58), { ...base, ...extra, report: { type: 'X' } }));
    assert.ok(x.includes('X REPORT - DAY STILL OPEN'), x.join('\n'));
    const z = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...base, ...extra, report: { type: 'Z', number: 7 } }));
    assert.ok(z.includes('Z REPORT No. 7'), z.join('\n'));
    assert.ok(z.some((line) => /^Online \(5\) +2,000\.00$/.test(line)), z.join('\n'));
    assert.ok(z.some((line) => /^Declined offline \(1\) +99\.00$/.test(line)));
    assert.ok(z.some((line) => /^Gift cards sold \(2\) +10,000\.00$/.test(line)));
    assert.ok(z.some((line) => /^Tax 7\.5 % +75\.00$/.test(line)));
    assert.ok(z.some((line) => /^Malt +-2$/.test(line)));
    // A refund of an earlier day whose mobile money payout failed since: listed, and the net grows by it.
    const withFailure = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...base, refundFailures: { count: 1, amountMinor: 30_000 }, report: { type: 'Z', number: 8 } }));
    assert.ok(withFailure.some((line) => /^Refunds failed \(1\) +300\.00$/.test(line)), withFailure.join('\n'));
    assert.ok(withFailure.some((line) => line.includes('NET NGN 609,650.00')), withFailure.join('\n'));
    assert.ok(!z.some((line) => line.startsWith('Refunds failed')), 'no line when none failed');
  });

  it('prints a refund by lines with each line\'s refunded amount', () => {
    const refund = SAMPLE_RECEIPTS.refund as Extract<ReceiptInput, { kind: 'refund' }>;
    const lines = texts(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), { ...refund, items: [{ name: 'Jollof rice', quantity: 1, unitPriceMinor: 150_000, amountMinor: 143_750 }], amountMinor: 143_750 }));
    assert.ok(lines.some((line) => /^ {2}1 x 1,500\.00 +1,437\.50$/.test(line)), lines.join('\n'));
    assert.ok(lines.some((line) => line.includes('REFUND -NGN 1,437.50')), lines.join('\n'));
  });
});
