// Safaricom Daraja (M-Pesa, Kenya, KES): B2C payouts, M-Pesa Express collections, their
// callbacks. See README.md in this folder; pages in vendor/daraja/.
import type { RailAdapterModule } from '../types.ts';
import { createMpesaAdapter } from './adapter.ts';
import { MPESA_ENV_VARS, type MpesaConfig, configFromEnv } from './config.ts';

export type { MpesaAdapter } from './adapter.ts';
export type { MpesaConfig } from './config.ts';

const mpesa: RailAdapterModule<MpesaConfig> = {
  name: 'mpesa',
  envVars: MPESA_ENV_VARS,
  configFromEnv,
  create: createMpesaAdapter,
};

export default mpesa;
