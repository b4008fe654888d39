export * from './money.ts';
export * from './countries.ts';
export * from './errors.ts';
