// The fake's magic phone numbers: the outcome of a transfer or request-to-pay is chosen by the
// last seven digits of the payee's / payer's MSISDN.
//
// Modelled on MTN's sandbox test numbers (vendor/momo/testing.md):
//   46733123450 Failed, 46733123451 Rejected, 46733123452 Timeout,
//   46733123453 Ongoing ("pending first and if requested again after 30 seconds ... success"),
//   46733123454 Pending, any other number Success.
// Those are Swedish numbers; the fake keeps their last seven digits (3123450 ... 3123454) and
// puts them behind an MTN mobile prefix of each market, so they are valid numbers of that country
// for libphonenumber-js (+256 77 3123450 in Uganda, +233 24 3123450 in Ghana, ...). The scenarios
// the sandbox has no number for use 3123460 ... 3123466. The sandbox numbers themselves work too.

export const SCENARIO_SUFFIXES = {
  success: '3123410',
  failure: '3123450',
  rejected: '3123451',
  timeout: '3123452',
  ongoing: '3123453',
  pending: '3123454',
  insufficient_balance: '3123460',
  invalid_account: '3123461',
  no_answer: '3123462',
  error_then_success: '3123463',
  callback_lost: '3123464',
  duplicate_callback: '3123465',
  reversal_after_success: '3123466',
} as const;

export type MomoScenario = keyof typeof SCENARIO_SUFFIXES;

/** An MTN mobile prefix per market (+ country code and the national digits before the seven-digit suffix). */
export const MARKET_PREFIXES = {
  UG: '+25677',
  GH: '+23324',
  CM: '+23767',
  RW: '+25078',
  ZM: '+26096',
  CI: '+225050',
  BJ: '+229019',
  CG: '+24206',
  GN: '+22466',
  ZA: '+2783',
  LR: '+23188',
} as const;

export type MomoFakeCountry = keyof typeof MARKET_PREFIXES;

/** The currency MoMo pays in each market (the fake also takes EUR, the sandbox's test currency). */
export const MARKET_CURRENCIES: Readonly<Record<MomoFakeCountry, string>> = {
  UG: 'UGX', GH: 'GHS', CM: 'XAF', RW: 'RWF', ZM: 'ZMW', CI: 'XOF', BJ: 'XOF', CG: 'XAF', GN: 'GNF', ZA: 'ZAR', LR: 'LRD',
};

/** The documented sandbox numbers (testing.md), E.164. */
export const SANDBOX_TEST_NUMBERS = {
  failure: '+46733123450',
  rejected: '+46733123451',
  timeout: '+46733123452',
  ongoing: '+46733123453',
  pending: '+46733123454',
} as const;

export function scenarioPhone(country: MomoFakeCountry, scenario: MomoScenario): string {
  return `${MARKET_PREFIXES[country]}${SCENARIO_SUFFIXES[scenario]}`;
}

export interface ScenarioPayment {
  rail: 'mobile_money';
  toCode: MomoFakeCountry;
  receiver: { phone: string };
}

function scenariosOf(country: MomoFakeCountry): Readonly<Record<MomoScenario, ScenarioPayment>> {
  const entries = (Object.keys(SCENARIO_SUFFIXES) as MomoScenario[]).map((scenario) => [scenario, { rail: 'mobile_money', toCode: country, receiver: { phone: scenarioPhone(country, scenario) } }] as const);
  return Object.fromEntries(entries) as Record<MomoScenario, ScenarioPayment>;
}

/** Each scenario's `{ rail, toCode, receiver }` for `POST /api/pay`, in Uganda (UGX). */
export const SCENARIOS = scenariosOf('UG');
/** The same in Ghana (GHS). */
export const SCENARIOS_GH = scenariosOf('GH');
/** Every market the fake has numbers for. */
export const SCENARIOS_BY_COUNTRY: Readonly<Record<MomoFakeCountry, Readonly<Record<MomoScenario, ScenarioPayment>>>> = Object.fromEntries(
  (Object.keys(MARKET_PREFIXES) as MomoFakeCountry[]).map((country) => [country, scenariosOf(country)]),
) as Record<MomoFakeCountry, Record<MomoScenario, ScenarioPayment>>;

/** The scenario of an MSISDN (digits, without +): by its last seven digits; any other number succeeds. */
export function scenarioOf(msisdn: string): MomoScenario {
  const suffix = msisdn.slice(-7);
  const found = (Object.keys(SCENARIO_SUFFIXES) as MomoScenario[]).find((scenario) => SCENARIO_SUFFIXES[scenario] === suffix);
  return found ?? 'success';
}

const CALLING_CODES: Readonly<Record<MomoFakeCountry, string>> = {
  UG: '256', GH: '233', CM: '237', RW: '250', ZM: '260', CI: '225', BJ: '229', CG: '242', GN: '224', ZA: '27', LR: '231',
};

/** The market of an MSISDN (digits, without +) by its country calling code, if the fake knows it. */
export function countryOf(msisdn: string): MomoFakeCountry | undefined {
  return (Object.keys(CALLING_CODES) as MomoFakeCountry[]).find((country) => msisdn.startsWith(CALLING_CODES[country]));
}
