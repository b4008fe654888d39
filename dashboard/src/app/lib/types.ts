import type { DashboardSession } from '@tapline/shared/schemas';

export type Session = DashboardSession;
export type Role = Session['user']['role'];
export type Route = 'overview' | 'payments' | 'terminals' | 'giftCards' | 'developers' | 'team' | 'account';
export const ROUTES: readonly Route[] = ['overview', 'payments', 'terminals', 'giftCards', 'developers', 'team', 'account'];
