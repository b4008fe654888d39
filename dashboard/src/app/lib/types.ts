import type { DashboardSession } from '@tapline/shared/schemas';

export type Session = DashboardSession;
export type Role = Session['user']['role'];
export type Route =
  | 'overview'
  | 'payments'
  | 'payouts'
  | 'settlements'
  | 'posSessions'
  | 'offlinePayments'
  | 'paymentLinks'
  | 'bills'
  | 'payroll'
  | 'subscriptions'
  | 'terminals'
  | 'reports'
  | 'staff'
  | 'shifts'
  | 'refunds'
  | 'catalogue'
  | 'wearables'
  | 'giftCards'
  | 'rewards'
  | 'developers'
  | 'team'
  | 'account';
export const ROUTES: readonly Route[] = [
  'overview',
  'payments',
  'posSessions',
  'offlinePayments',
  'paymentLinks',
  'settlements',
  'payouts',
  'bills',
  'payroll',
  'subscriptions',
  'terminals',
  'reports',
  'staff',
  'shifts',
  'refunds',
  'catalogue',
  'wearables',
  'giftCards',
  'rewards',
  'developers',
  'team',
  'account',
];
