/**
 * The 9 sample NFC products of POST /api/admin/store/seed (stickers, cards, rings, bands,
 * keychains, watches). Priced in USD, the store's list currency for buyers across the 54
 * countries: listings convert into the buyer's wallet currency (walletCurrency). Images are
 * relative URLs under /store/images/ for the storefront to serve.
 */
export interface SampleProduct {
  slug: string;
  name: string;
  description: string;
  category: string;
  /** Major units of `currency`. */
  price: number;
  currency: string;
  stock: number;
  images: string[];
  variants: { name: string; priceDelta: number }[];
}

export const SEED_PRODUCTS: readonly SampleProduct[] = [
  {
    slug: 'nfc-sticker-pack-10',
    name: 'Tap Sticker Pack (10)',
    description: 'Ten 25 mm NTAG215 stickers for phones, laptops and counters. Each links to your @handle pay page.',
    category: 'stickers',
    price: 12,
    currency: 'USD',
    stock: 500,
    images: ['/store/images/nfc-sticker-pack-10.png'],
    variants: [],
  },
  {
    slug: 'epoxy-nfc-sticker',
    name: 'Round Epoxy Tap Sticker',
    description: 'A glossy, water-resistant 30 mm sticker for market stalls and shop doors.',
    category: 'stickers',
    price: 4.5,
    currency: 'USD',
    stock: 800,
    images: ['/store/images/epoxy-nfc-sticker.png'],
    variants: [],
  },
  {
    slug: 'pvc-tap-card',
    name: 'Tapline PVC Tap Card',
    description: 'A wallet-sized NFC card: hand it over, tap, get paid. Printed with your name and @handle.',
    category: 'cards',
    price: 9.99,
    currency: 'USD',
    stock: 300,
    images: ['/store/images/pvc-tap-card-front.png', '/store/images/pvc-tap-card-back.png'],
    variants: [],
  },
  {
    slug: 'metal-tap-card',
    name: 'Brushed Metal Tap Card',
    description: 'Stainless steel with an embedded NFC inlay, laser engraved. Made to last for years of taps.',
    category: 'cards',
    price: 39,
    currency: 'USD',
    stock: 120,
    images: ['/store/images/metal-tap-card.png'],
    variants: [
      { name: 'Silver', priceDelta: 0 },
      { name: 'Black', priceDelta: 0 },
      { name: 'Gold', priceDelta: 10 },
    ],
  },
  {
    slug: 'ceramic-smart-ring',
    name: 'Ceramic Smart Ring',
    description: 'A zirconia ceramic ring with a hidden NFC chip. No battery, waterproof, pays with a tap.',
    category: 'rings',
    price: 49,
    currency: 'USD',
    stock: 80,
    images: ['/store/images/ceramic-smart-ring.png'],
    variants: [
      { name: 'Size 7', priceDelta: 0 },
      { name: 'Size 8', priceDelta: 0 },
      { name: 'Size 9', priceDelta: 0 },
      { name: 'Size 10', priceDelta: 0 },
      { name: 'Size 11', priceDelta: 0 },
    ],
  },
  {
    slug: 'silicone-tap-band',
    name: 'Silicone Tap Band',
    description: 'A soft, adjustable wristband for the gym, the beach and the bus. One tap pays.',
    category: 'bands',
    price: 14.5,
    currency: 'USD',
    stock: 250,
    images: ['/store/images/silicone-tap-band.png'],
    variants: [
      { name: 'Black', priceDelta: 0 },
      { name: 'Green', priceDelta: 0 },
      { name: 'Orange', priceDelta: 0 },
    ],
  },
  {
    slug: 'woven-festival-band',
    name: 'Woven Festival Band',
    description: 'A fabric band with a sealed NFC tag, for festivals, events and cashless venues.',
    category: 'bands',
    price: 7.5,
    currency: 'USD',
    stock: 400,
    images: ['/store/images/woven-festival-band.png'],
    variants: [],
  },
  {
    slug: 'leather-tap-keychain',
    name: 'Leather Tap Keychain',
    description: 'Hand-stitched leather fob with an NFC tag, on a brass ring. Tap your keys to pay.',
    category: 'keychains',
    price: 16,
    currency: 'USD',
    stock: 200,
    images: ['/store/images/leather-tap-keychain.png'],
    variants: [],
  },
  {
    slug: 'tapline-pay-watch',
    name: 'Tapline Pay Watch',
    description: 'A water-resistant sports watch with a secure NFC element and a 10-day battery.',
    category: 'watches',
    price: 129,
    currency: 'USD',
    stock: 40,
    images: ['/store/images/tapline-pay-watch.png'],
    variants: [
      { name: '40 mm', priceDelta: 0 },
      { name: '44 mm', priceDelta: 15 },
    ],
  },
];
