// `RAIL_FAKES=1 npm start`: the four payment providers' local fakes (test/fakes/<provider>/), started
// beside the server and named in its environment, so live mode moves money end to end on one
// machine: a live POST /api/pay to a fake's magic receiver is paid, called back and final.
// Variables already set (a real provider's sandbox) are left as they are.
import { startFlutterwaveFake } from '../test/fakes/flutterwave/index.ts';
import { startMomoFake } from '../test/fakes/momo/index.ts';
import { startMpesaFake } from '../test/fakes/mpesa/index.ts';
import { startPaystackFake } from '../test/fakes/paystack/index.ts';

export interface RunningRailFakes {
  /** One line per provider: its name and where its fake listens. */
  describe(): string[];
  stop(): Promise<void>;
}

/** The server's public address as the configuration will make it (callbacks go there). */
function serverUrl(env: NodeJS.ProcessEnv): string {
  const explicit = env.PUBLIC_BASE_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, '');
  const host = env.HOST?.trim() || '127.0.0.1';
  return `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${env.PORT?.trim() || '3000'}`;
}

export async function startRailFakes(env: NodeJS.ProcessEnv = process.env): Promise<RunningRailFakes> {
  const base = serverUrl(env);
  const fakes = [
    { name: 'paystack', fake: await startPaystackFake({ callbackBase: `${base}/api/rails/paystack/webhook` }) },
    { name: 'flutterwave', fake: await startFlutterwaveFake({ callbackBase: `${base}/api/rails/flutterwave/webhook` }) },
    { name: 'mpesa', fake: await startMpesaFake({ callbackBase: base }) },
    { name: 'momo', fake: await startMomoFake({ callbackBase: base }) },
  ];
  for (const { fake } of fakes) {
    for (const [name, value] of Object.entries(fake.env as Record<string, string>)) env[name] ??= value;
  }
  return {
    describe: () => fakes.map(({ name, fake }) => `${name} fake on ${fake.url}`),
    async stop() {
      await Promise.all(fakes.map(({ fake }) => fake.stop()));
    },
  };
}
