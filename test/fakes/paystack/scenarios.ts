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

// Mobile money charges (collections): the last digit N of a magic payer picks what the customer
// does with the prompt. Ghana MTN +23324000000N (sent as 024000000N), Kenya M-PESA +25470000000N
// (sent as 25470000000N). Any other payer approves. A Ghanaian Vodafone (Telecel) number, e.g.
// +233200000001, is answered send_otp (Paystack's voucher sample) whatever its digits.
export const CHARGE_SCENARIO_NAMES = ['success', 'declined', 'insufficient_funds', 'no_answer', 'held', 'success', 'callback_lost', 'duplicate_callback', 'success'] as const;
export type ChargeScenarioName = (typeof CHARGE_SCENARIO_NAMES)[number];

const payer = (digit: number) => ({ gh: `+23324000000${digit}`, ke: `+25470000000${digit}` });

export const CHARGE_SCENARIOS = {
  /** pay_offline, then success after 1 s × delayScale and a signed charge.success. */
  success: payer(1),
  /** pay_offline, then failed ("Declined by the customer"); no webhook (Paystack documents none for a failed charge). */
  declined: payer(2),
  /** pay_offline, then failed with Paystack's "Insufficient funds". */
  insufficient_funds: payer(3),
  /** pay_offline forever: the customer never answers. */
  no_answer: payer(4),
  /** The charge is made at once but the answer is held 30 s × delayScale; then it succeeds (with its webhook). */
  held: payer(5),
  /** Succeeds; the webhook is never sent (found by verify). */
  callback_lost: payer(7),
  /** Succeeds; charge.success is sent twice (the same bytes). */
  duplicate_callback: payer(8),
  /** Vodafone (Telecel) Ghana: send_otp, which a till cannot answer. */
  otp: { gh: '+233200000001' },
} as const;

const CHARGE_MAGIC = /^(?:024000000|25470000000)([1-9])$/;

/** The scenario of a charge's phone as Paystack receives it. */
export function chargeScenarioOf(phone: string): ChargeScenarioName {
  const match = CHARGE_MAGIC.exec(phone);
  return match ? CHARGE_SCENARIO_NAMES[Number(match[1]) - 1]! : 'success';
}
