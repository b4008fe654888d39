// The provider adapters this server ships. A provider whose variables are not all set is not built.
import flutterwave from './flutterwave/index.ts';
import momo from './momo/index.ts';
import mpesa from './mpesa/index.ts';
import paystack from './paystack/index.ts';
import type { RailAdapterModule } from './types.ts';

export const RAIL_MODULES: readonly RailAdapterModule[] = [paystack, flutterwave, mpesa, momo];
