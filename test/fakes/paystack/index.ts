export { startPaystackFake } from './server.ts';
export type { FakePayout, FakeTransferView, PaystackFake, PaystackFakeOptions } from './server.ts';
export { SCENARIOS, SCENARIO_NAMES, scenarioOf } from './scenarios.ts';
export type { ScenarioName, ScenarioReceiver } from './scenarios.ts';
export { BANKS } from './banks.ts';
export type { SentWebhook } from './webhooks.ts';
