import { AFRICAN_COUNTRIES, SUPPORTED_COUNTRIES } from '@tapline/shared/countries';

/** The spec's rails table plus `wallet` (an on-us transfer between Tapline wallets). */
export const RAILS = ['mobile_money', 'bank_transfer', 'payment_link', 'qr', 'offline_qr', 'card', 'cash_pickup', 'wallet'] as const;
export type Rail = (typeof RAILS)[number];

export function isRail(value: string): value is Rail {
  return (RAILS as readonly string[]).includes(value);
}

/** What a rail needs as its receiver. */
export type ReceiverKind = 'phone' | 'account' | 'handle' | 'any';

export interface RailInfo {
  rail: Rail;
  availability: 'live' | 'beta' | 'beta_invitation';
  receiver: ReceiverKind;
  /** Recipient countries where the rail is offered. */
  countries: readonly string[];
  /** Typical time to arrival once submitted, for estimatedArrival in live mode. */
  typicalArrivalMs: number;
}

const MINUTE = 60_000;

/**
 * Rail availability by recipient country. The spec names the core countries of each rail and
 * "about 30 more" / "about 20 more"; these lists are the service's concrete answer.
 */
const MOBILE_MONEY = [
  'NG', 'KE', 'GH', 'TZ', 'UG', 'RW', 'CM', 'SN',
  'CI', 'BJ', 'BF', 'ML', 'NE', 'TG', 'GN', 'SL', 'LR', 'GM', 'GW', 'CD', 'CG', 'GA', 'TD', 'CF',
  'ZM', 'MW', 'MZ', 'ZW', 'MG', 'ET', 'SO', 'BI', 'KM', 'EG', 'BW', 'LS', 'SZ', 'MR', 'DJ',
];
const BANK_TRANSFER = [
  'NG', 'KE', 'GH', 'ZA', 'EG', 'SN',
  'MA', 'TN', 'DZ', 'CI', 'CM', 'UG', 'TZ', 'RW', 'ZM', 'MW', 'MZ', 'BW', 'NA', 'ET', 'MU', 'AO', 'BJ', 'TG', 'BF', 'ML', 'ZW',
  'US', 'GB',
];

export const RAIL_INFO: Readonly<Record<Rail, RailInfo>> = {
  mobile_money: { rail: 'mobile_money', availability: 'live', receiver: 'phone', countries: MOBILE_MONEY, typicalArrivalMs: 5 * MINUTE },
  bank_transfer: { rail: 'bank_transfer', availability: 'live', receiver: 'account', countries: BANK_TRANSFER, typicalArrivalMs: 24 * 60 * MINUTE },
  payment_link: { rail: 'payment_link', availability: 'live', receiver: 'any', countries: [...AFRICAN_COUNTRIES], typicalArrivalMs: 60 * MINUTE },
  qr: { rail: 'qr', availability: 'live', receiver: 'any', countries: ['NG', 'KE', 'GH', 'ZA', 'TZ'], typicalArrivalMs: MINUTE },
  offline_qr: { rail: 'offline_qr', availability: 'beta_invitation', receiver: 'any', countries: ['NG', 'KE', 'GH', 'TZ', 'UG'], typicalArrivalMs: 60 * MINUTE },
  card: { rail: 'card', availability: 'beta', receiver: 'any', countries: ['NG', 'GH', 'ZA', 'EG', 'KE'], typicalArrivalMs: 60 * MINUTE },
  cash_pickup: { rail: 'cash_pickup', availability: 'beta', receiver: 'phone', countries: ['NG', 'KE', 'GH', 'UG', 'TZ', 'SN', 'CI'], typicalArrivalMs: 60 * MINUTE },
  wallet: { rail: 'wallet', availability: 'live', receiver: 'handle', countries: SUPPORTED_COUNTRIES, typicalArrivalMs: 0 },
};

export function railAvailableIn(rail: Rail, country: string): boolean {
  return RAIL_INFO[rail].countries.includes(country);
}

/** A one-paragraph description of the rails for the OpenAPI document. */
export function describeRails(): string {
  return RAILS.map((rail) => {
    const info = RAIL_INFO[rail];
    const countries = info.countries.length >= 54 ? (info.countries.length > 54 ? 'every supported country' : 'all 54 African countries') : info.countries.join(', ');
    return `${rail} (${info.availability.replace('_', ', by ')}; receiver: ${info.receiver === 'any' ? 'any form' : info.receiver}): ${countries}`;
  }).join('. ');
}
