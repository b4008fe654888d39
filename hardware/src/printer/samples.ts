/**
 * Sample receipts: what `npm run hardware -- print-test` prints and what the preview tests
 * render. Realistic enough that a person reviewing a preview can judge the layout.
 */
import { monochromeImage } from './document.ts';
import type { MonochromeImage, PaperWidth } from './document.ts';
import type { MerchantHeader, ReceiptInput, ReceiptSettings } from './layouts.ts';

/** The Tapline mark: a filled dot with three NFC waves, drawn in code so no image file is needed. */
export function taplineLogo(size = 96): MonochromeImage {
  const centerX = size * 0.3;
  const centerY = size / 2;
  return monochromeImage(size, size, (x, y) => {
    const dx = x - centerX;
    const dy = y - centerY;
    const distance = Math.hypot(dx, dy);
    if (distance <= size * 0.12) return true;
    // Waves only to the right of the dot, within +-45 degrees.
    if (dx <= 0 || Math.abs(dy) > dx) return false;
    return [0.25, 0.38, 0.51].some((radius) => Math.abs(distance - size * radius) <= size * 0.035);
  });
}

export const SAMPLE_MERCHANT: MerchantHeader = {
  name: 'Mama Put Kitchen',
  handle: 'mamaput',
  addressLines: ['12 Allen Avenue, Ikeja', 'Lagos, Nigeria'],
  phone: '+234 803 555 0142',
  taxId: 'TIN 20394857-0001',
  logo: taplineLogo(),
};

export function sampleSettings(paperWidth: PaperWidth = 80): ReceiptSettings {
  return { paperWidth, language: 'en-NG', timeZone: 'Africa/Lagos', terminalName: 'Till 1', footer: 'Returns within 7 days with this receipt.' };
}

export const SAMPLE_RECEIPTS: Readonly<Record<ReceiptInput['kind'], ReceiptInput>> = {
  'pos-payment': {
    kind: 'pos-payment',
    sessionId: '3f2a9c1e-7b4d-4e8a-9f10-2c6d8e4b1a77',
    amountMinor: 1_250_000,
    currency: 'NGN',
    description: 'Lunch for 3, table 4',
    payerHandle: 'adaeze',
    walletRef: 'wtx_8J2K4M9Q',
    tagId: 'TG1A2B3C4D',
    completedAt: '2026-01-15T12:41:09Z',
  },
  'store-sale': {
    kind: 'store-sale',
    receiptNumber: 'R-000123',
    items: [
      { name: 'Jollof rice with chicken', quantity: 2, unitPriceMinor: 450_000 },
      { name: 'Chapman (large)', quantity: 3, unitPriceMinor: 120_000 },
      { name: 'Tapline NFC wristband - black', quantity: 1, unitPriceMinor: 500_000 },
    ],
    currency: 'NGN',
    discountMinor: 50_000,
    taxMinor: 121_163,
    payments: [
      { method: 'gift_card', amountMinor: 1_000_000, reference: 'gc_7f3a9b2c1d' },
      { method: 'cash', amountMinor: 800_000 },
    ],
    changeMinor: 90_000,
    cashier: 'Tunde',
    soldAt: '2026-01-15T13:05:44Z',
  },
  'gift-card-sale': {
    kind: 'gift-card-sale',
    receiptNumber: 'R-000124',
    code: 'gc_9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    amountMinor: 2_000_000,
    currency: 'NGN',
    expiresAt: '2027-01-15T13:10:00Z',
    message: 'Happy birthday Chioma!',
    pinProtected: true,
    payment: { method: 'wallet', amountMinor: 2_000_000 },
    soldAt: '2026-01-15T13:10:00Z',
  },
  'offline-payment': {
    kind: 'offline-payment',
    paymentId: 'off_01HZX4T9Q2W7E5R3',
    method: 'offline_tap',
    amountMinor: 350_000,
    currency: 'NGN',
    description: 'Suya platter',
    payerHandle: 'kwame.m',
    tagId: 'TG00C0FFEE',
    takenAt: '2026-01-15T14:22:31Z',
  },
  'till-sale': {
    kind: 'till-sale',
    saleId: '7c1e4b2a-9d3f-4a6e-8b5c-1f2e3d4c5b6a',
    amountMinor: 338_695,
    currency: 'NGN',
    cart: {
      lines: [
        { productId: 'prod_jollof', name: 'Jollof rice with chicken', quantity: 2, unitPrice: 150_000, discount: 10_000, taxRate: 750, taxInclusive: true },
        { productId: 'prod_malt', name: 'Malt', quantity: 1, unitPrice: 50_000, discount: 0, taxRate: 750, taxInclusive: false },
      ],
      discount: 5_000,
    },
    tenders: [{ method: 'cash', amountMinor: 338_695, tenderedMinor: 400_000, changeMinor: 61_305 }],
    cashier: 'Tunde',
    soldAt: '2026-01-15T13:20:05Z',
  },
  refund: {
    kind: 'refund',
    refundNumber: 'RF-000007',
    originalReceiptNumber: 'R-000123',
    items: [{ name: 'Chapman (large)', quantity: 1, unitPriceMinor: 120_000 }],
    amountMinor: 120_000,
    currency: 'NGN',
    method: 'cash',
    reason: 'Drink spilled at the counter',
    cashier: 'Tunde',
    refundedAt: '2026-01-15T13:30:12Z',
  },
  'end-of-day': {
    kind: 'end-of-day',
    businessDate: '2026-01-15',
    currency: 'NGN',
    openedAt: '2026-01-15T07:00:00Z',
    closedAt: '2026-01-15T21:05:00Z',
    totals: [
      { method: 'cash', count: 42, amountMinor: 18_450_000 },
      { method: 'nfc_tap', count: 57, amountMinor: 31_275_000 },
      { method: 'wallet', count: 8, amountMinor: 6_400_000 },
      { method: 'gift_card', count: 5, amountMinor: 4_000_000 },
      { method: 'offline_tap', count: 3, amountMinor: 1_050_000 },
    ],
    refunds: { count: 2, amountMinor: 240_000 },
    offline: { count: 3, amountMinor: 1_050_000, pendingSync: 1 },
    sync: { state: 'pending', lastSyncedAt: '2026-01-15T20:58:13Z', pendingDocuments: 2 },
  },
  'shift-report': {
    kind: 'shift-report',
    shiftId: '7c1e4b2a-9d3f-4a6e-8b05-1f2e3d4c5b6a',
    currency: 'NGN',
    cashier: 'Tunde',
    openedAt: '2026-01-15T07:02:00Z',
    closedAt: '2026-01-15T15:04:00Z',
    floatMinor: 2_000_000,
    cashSalesMinor: 8_450_000,
    cashRefundsMinor: 120_000,
    paidInMinor: 500_000,
    paidOutMinor: 250_000,
    noSales: 1,
    expectedMinor: 10_580_000,
    countedMinor: 10_575_000,
  },
};
