import type { Answer } from '@tapline/shared/api';

/** The signed-in user's session, as GET /api/dashboard/session answers it. */
export type Session = Answer<'GET', '/api/dashboard/session'>;
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
