// Magic phone numbers: the receiver (or the customer, for M-Pesa Express) chooses what the fake
// does. All are valid Kenyan mobile numbers for libphonenumber-js (+254 7xx xxx xxx).

/** Payout scenarios: the receiver to use in POST /api/pay with rail mobile_money and toCode KE. */
export const SCENARIOS = {
  /** Accepted, paid, result ResultCode 0 posted to ResultURL. */
  success: { phone: '+254700000001' },
  /** Accepted, not paid: result 8 "Declined due to limit rule: would exceed the maximum balance." */
  failure: { phone: '+254700000002' },
  /** Accepted, not paid: result 1 "The balance is insufficient for the transaction." (the organisation's utility account). */
  insufficient_balance: { phone: '+254700000003' },
  /** Accepted, not paid: result 2040, the customer is not registered on M-Pesa. */
  invalid_account: { phone: '+254700000004' },
  /** The request is held ~30 s × delayScale before the acknowledgement, then paid (the client has timed out). */
  no_answer: { phone: '+254700000005' },
  /** First request for a key: HTTP 500 500.003.1001, nothing recorded, nothing paid; the next request is a normal success. */
  error_then_success: { phone: '+254700000006' },
  /** Paid; the result is never posted (poll and lookup must find it with Transaction Status). */
  callback_lost: { phone: '+254700000007' },
  /** Paid; the result is posted twice. */
  duplicate_callback: { phone: '+254700000008' },
  /** Paid and the result posted; later reversed "on the M-PESA portal": Transaction Status then says Reversed. */
  reversal_after_success: { phone: '+254700000009' },
} as const;

export type PayoutScenario = keyof typeof SCENARIOS;

/** M-Pesa Express (STK push) scenarios: the customer's phone in a CollectionRequest. */
export const COLLECTION_SCENARIOS = {
  /** The customer enters their PIN: callback ResultCode 0 with Amount, MpesaReceiptNumber, TransactionDate, PhoneNumber. */
  success: { phone: '+254700000011' },
  /** The customer cancels the prompt: 1032 "Request cancelled by user". */
  cancelled: { phone: '+254700000012' },
  /** The customer's wallet is short: 1 "The balance is insufficient for the transaction." */
  insufficient_funds: { phone: '+254700000013' },
  /** Nobody answers the prompt: after 60 s × delayScale, 1037 "DS timeout user cannot be reached". */
  no_answer: { phone: '+254700000014' },
  /** The customer pays; the callback is never posted (the query still answers). */
  callback_lost: { phone: '+254700000015' },
  /**
   * Daraja takes the push on arrival (the prompt is on the phone at once) but its answer is held
   * (30 s × delayScale, `holdMs`, or until `releaseHeld()`); once acknowledged, the customer pays
   * and the callback is posted: a crash of the caller while Daraja holds the push.
   */
  push_held: { phone: '+254700000016' },
} as const;

export type CollectionScenario = keyof typeof COLLECTION_SCENARIOS;

/** 2547XXXXXXXX (Daraja's form) of an E.164 Kenyan number. */
export function msisdn(phone: string): string {
  return phone.replace(/^\+/, '');
}

export function payoutScenarioOf(partyB: string): PayoutScenario {
  const found = (Object.keys(SCENARIOS) as PayoutScenario[]).find((name) => msisdn(SCENARIOS[name].phone) === partyB);
  return found ?? 'success';
}

export function collectionScenarioOf(phone: string): CollectionScenario {
  const found = (Object.keys(COLLECTION_SCENARIOS) as CollectionScenario[]).find((name) => msisdn(COLLECTION_SCENARIOS[name].phone) === phone);
  return found ?? 'success';
}
