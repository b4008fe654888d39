// Who sends a live payout, as the merchant's profile has it (PayoutRequest.sender): the providers
// that must tell (Flutterwave to Kenya: meta.sender, sender_country, mobile_number) read it.
//
//   a merchant's payment (POST /api/pay, payroll, a till refund's payback): the merchant's name
//     and country; its mobile number is the phone of its own mobile money settlement account (the
//     default one first, then the oldest; POST /api/merchant/settlement-accounts), where it has one
//   a merchant's settlement payout: the same, for the merchant the payout belongs to
//   a wallet withdrawal (no merchant): the holder's name and wallet country as the payment row
//     has them, and her own number when she withdraws to mobile money
// Undefined when none of these is known. The mobile number is digits with the country code, no '+'.
import type { Queryable } from '../../db/database.ts';
import { findMerchant } from '../merchants/index.ts';
import type { PaymentRow, PayoutSender } from '../payments/index.ts';
import { findPayoutByPayment, mobileMoneyNumber } from './store.ts';

const digits = (phone: string | null | undefined): string | undefined => {
  const clean = (phone ?? '').replace(/[^\d]/g, '');
  return clean.length >= 6 ? clean : undefined;
};

async function merchantSender(db: Queryable, merchantId: string, mode: PaymentRow['mode']): Promise<PayoutSender | undefined> {
  const merchant = await findMerchant(db, merchantId);
  if (!merchant) return undefined;
  const mobileNumber = digits(await mobileMoneyNumber(db, merchantId, mode));
  return { name: merchant.name, country: merchant.country, ...(mobileNumber ? { mobileNumber } : {}) };
}

export function payoutSenderOf(db: Queryable): (row: PaymentRow) => Promise<PayoutSender | undefined> {
  return async (row) => {
    if (row.merchant_id) return merchantSender(db, row.merchant_id, row.mode);
    if (row.kind === 'settlement') {
      const payout = await findPayoutByPayment(db, row.id);
      return payout ? merchantSender(db, payout.merchant_id, row.mode) : undefined;
    }
    if (!row.sender_name || !row.from_country) return undefined;
    const own = row.rail === 'mobile_money' ? digits((row.receiver as { phone?: string }).phone) : undefined;
    return { name: row.sender_name, country: row.from_country, ...(own ? { mobileNumber: own } : {}) };
  };
}
