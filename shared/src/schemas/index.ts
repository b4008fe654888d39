export * from './common.ts';
export * from './provisioning.ts';
export * from './sessions.ts';
export * from './merchant.ts';
