export * from './databases.ts';
export * from './server.ts';
export * from './receiver.ts';
export * from './ledger.ts';
export * from './relay.ts';
export * from './server-process.ts';
export { tillPinVerifier } from '../modules/till-staff/index.ts';
export * from './until.ts';
