// The fake's magic numbers. A payout's account_number (a bank account, or a mobile money number
// with its country code) chooses its scenario by its last seven digits: "000000" then the
// scenario's digit. Any other number is paid (success). Bills use the same rule on the customer
// (meter, smartcard or phone): ...0000002 is refused by validation (invalid customer), ...0000003
// is declined by POST /v3/bills (failure), anything else is paid.

export const SCENARIO_DIGITS = {
  success: 1,
  failure: 2,
  insufficient_balance: 3,
  invalid_account: 4,
  no_answer: 5,
  error_then_success: 6,
  callback_lost: 7,
  duplicate_callback: 8,
  reversal_after_success: 9,
} as const;

export type ScenarioName = keyof typeof SCENARIO_DIGITS;

/** What to send as `POST /api/pay` ({ rail, toCode, receiver }) for each scenario: a Nigerian bank account at Access Bank (044). */
export const SCENARIOS: Readonly<Record<ScenarioName, { rail: 'bank_transfer'; toCode: 'NG'; receiver: { accountNumber: string; bankCode: string; name: string } }>> = Object.fromEntries(
  Object.entries(SCENARIO_DIGITS).map(([name, digit]) => [name, { rail: 'bank_transfer', toCode: 'NG', receiver: { accountNumber: `000000000${digit}`, bankCode: '044', name: 'Ada Obi' } }]),
) as never;

/** Mobile money receivers for the same scenarios, e.g. Ghana MTN: { phone: '+23324000000N', provider: 'mtn' }. */
export function mobileMoneyScenario(name: ScenarioName): { rail: 'mobile_money'; toCode: 'GH'; receiver: { phone: string; provider: string; name: string } } {
  return { rail: 'mobile_money', toCode: 'GH', receiver: { phone: `+23324000000${SCENARIO_DIGITS[name]}`, provider: 'mtn', name: 'Kwame Mensah' } };
}

export function scenarioOf(accountNumber: string): ScenarioName {
  const match = /000000([1-9])$/.exec(accountNumber.replace(/\D/g, ''));
  if (!match) return 'success';
  const digit = Number(match[1]);
  return (Object.entries(SCENARIO_DIGITS).find(([, value]) => value === digit)?.[0] as ScenarioName | undefined) ?? 'success';
}

/** Bills: meters, smartcards and phones. */
export const BILL_CUSTOMERS = {
  meter: { success: '45700000001', invalid: '45700000002', failure: '45700000003' },
  smartcard: { success: '7000000001', invalid: '7000000002', failure: '7000000003' },
  startimesSmartcard: { success: '02100000001', invalid: '02100000002', failure: '02100000003' },
  phone: { success: '+2348031234567', invalid: '+2348030000002', failure: '+2348030000003' },
} as const;

export function billOutcomeOf(customer: string): 'success' | 'invalid' | 'failure' {
  const digits = customer.replace(/\D/g, '');
  if (digits.endsWith('0000002')) return 'invalid';
  if (digits.endsWith('0000003')) return 'failure';
  return 'success';
}

// Mobile money charges (collections): the payer's phone picks what the customer does with the
// prompt by its last seven digits, "000000" then the digit (the phone as POST /v3/charges receives
// it, international or with its trunk 0: the same last digits). Any other payer approves.
export const CHARGE_SCENARIO_DIGITS = {
  /** Pending, then successful after 2 s × delayScale, and one charge.completed. */
  success: 1,
  /** Pending, then failed ("Transaction declined by the customer"), with its charge.completed. */
  declined: 2,
  /** Pending, then failed (insufficient funds), with its charge.completed. */
  insufficient_funds: 3,
  /** Pending forever: the customer never answers; no webhook. */
  no_answer: 4,
  /** The charge is made at once but the answer is held 30 s × delayScale; then it succeeds (with its webhook). */
  held: 5,
  /** Succeeds for one major unit less than asked; verify and the webhook say so. */
  amount_mismatch: 6,
  /** Succeeds; the webhook is never sent (found by verify). */
  callback_lost: 7,
  /** Succeeds; charge.completed is sent twice. */
  duplicate_callback: 8,
  /** The record says failed (declined) while a genuine-hash charge.completed says successful. */
  webhook_disagrees: 9,
} as const;

export type ChargeScenarioName = keyof typeof CHARGE_SCENARIO_DIGITS;

/** A Ugandan MTN payer (+25677000000N) for each charge scenario: Uganda is where the tests collect through Flutterwave. */
export const CHARGE_SCENARIOS: Readonly<Record<ChargeScenarioName, string>> = Object.fromEntries(
  Object.entries(CHARGE_SCENARIO_DIGITS).map(([name, digit]) => [name, `+25677000000${digit}`]),
) as never;

export function chargeScenarioOf(phone: string): ChargeScenarioName {
  const match = /000000([1-9])$/.exec(phone.replace(/\D/g, ''));
  if (!match) return 'success';
  const digit = Number(match[1]);
  return (Object.entries(CHARGE_SCENARIO_DIGITS).find(([, value]) => value === digit)?.[0] as ChargeScenarioName | undefined) ?? 'success';
}
