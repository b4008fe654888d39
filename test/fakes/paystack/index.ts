export { startPaystackFake } from './server.ts';
export type { FakePayout, FakeTransferView, PaystackFake, PaystackFakeOptions } from './server.ts';
export { CHARGE_SCENARIOS, SCENARIOS, SCENARIO_NAMES, chargeScenarioOf, scenarioOf } from './scenarios.ts';
export type { ChargeScenarioName, ScenarioName, ScenarioReceiver } from './scenarios.ts';
export type { FakeCharge } from './charges.ts';
export { BANKS } from './banks.ts';
export type { SentWebhook } from './webhooks.ts';
export type { FakeBankTransfer, SendBankTransferOptions } from './virtual-accounts.ts';
