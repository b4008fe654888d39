// The local fake of MTN MoMo: see README.md.
export { startMomoFake } from './server.ts';
export type { FakeCallback, FakeCollection, FakePayout, FakeRequest, MomoFake, MomoFakeOptions } from './server.ts';
export {
  MARKET_CURRENCIES,
  MARKET_PREFIXES,
  SANDBOX_TEST_NUMBERS,
  SCENARIOS,
  SCENARIOS_BY_COUNTRY,
  SCENARIOS_GH,
  SCENARIO_SUFFIXES,
  scenarioOf,
  scenarioPhone,
} from './scenarios.ts';
export type { MomoFakeCountry, MomoScenario, ScenarioPayment } from './scenarios.ts';
