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
