// The fake's magic receivers: the last digit of a magic account or phone number picks what the
// fake does with a transfer to it. Any other receiver is paid (success).
//
//   bank account     000000000N   (e.g. { accountNumber: '0000000001', bankCode: '058' }, Nigeria)
//   Ghana phone      +23324000000N (mobile money; sent to Paystack as 024000000N)
//   Kenya phone      +25470000000N (mobile money; sent to Paystack as 070000000N)

export const SCENARIO_NAMES = [
  'success',
  'failure',
  'insufficient_balance',
  'invalid_account',
  'no_answer',
  'error_then_success',
  'callback_lost',
  'duplicate_callback',
  'reversal_after_success',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** What to send to POST /api/pay to meet a scenario (`receiver` as parseReceiver accepts it). */
export interface ScenarioReceiver {
  rail: 'bank_transfer' | 'mobile_money';
  toCode: string;
  receiver: { accountNumber: string; bankCode: string } | { phone: string; provider?: string };
}

const account = (digit: number): ScenarioReceiver => ({ rail: 'bank_transfer', toCode: 'NG', receiver: { accountNumber: `000000000${digit}`, bankCode: '058' } });

export const SCENARIOS: Readonly<Record<ScenarioName, ScenarioReceiver>> & Readonly<Record<string, ScenarioReceiver>> = {
  success: account(1),
  failure: account(2),
  insufficient_balance: account(3),
  invalid_account: account(4),
  no_answer: account(5),
  error_then_success: account(6),
  callback_lost: account(7),
  duplicate_callback: account(8),
  reversal_after_success: account(9),
  // The same scenarios reach mobile money by the phone's last digit; these two are paid.
  mobile_money_gh: { rail: 'mobile_money', toCode: 'GH', receiver: { phone: '+233240000001', provider: 'MTN' } },
  mobile_money_ke: { rail: 'mobile_money', toCode: 'KE', receiver: { phone: '+254700000001' } },
};

const MAGIC = /^0(?:00000000|24000000|70000000)([1-9])$/;

/** The scenario of a recipient's account_number as Paystack receives it. */
export function scenarioOf(accountNumber: string): ScenarioName {
  const match = MAGIC.exec(accountNumber);
  return match ? SCENARIO_NAMES[Number(match[1]) - 1]! : 'success';
}
