// The transfer recipient a payout goes to (POST /transferrecipient, openapi.yaml
// TransferRecipientCreate: type, name, account_number, bank_code required; currency optional but
// sent, since it decides the rail). Paystack answers a duplicate account number with the existing
// record ("A duplicate account number will lead to the retrieval of the existing record"), so
// creating it again on a retry is harmless.
import type { PayoutRequest } from '../types.ts';
import { findOperator, type BankDirectory } from './banks.ts';
import { isRefusal, type PaystackClient, PaystackUnavailable, paystackMessage } from './client.ts';
import { nationalPhone, paystackCountry, supports } from './countries.ts';

export interface RecipientBody {
  type: string;
  name: string;
  account_number: string;
  bank_code: string;
  currency: string;
}

export type Recipient = { body: RecipientBody } | { refusal: string };
export type CreatedRecipient = { recipientCode: string } | { refusal: string };

// The documents give no length limit for a recipient's name; 100 characters is plenty for a person.
const NAME_LENGTH_MAX = 100;

/** What Paystack needs to pay this receiver, or why it cannot (a sentence the merchant can read). */
export async function recipientFor(request: PayoutRequest, directory: BankDirectory): Promise<Recipient> {
  const country = paystackCountry(request.toCountry);
  if (!country || !supports(request.rail, request.toCountry)) {
    return { refusal: `Paystack does not pay ${request.rail.replace('_', ' ')} in ${request.toCountry}.` };
  }
  if (request.destinationCurrency !== country.currency) {
    return { refusal: `Paystack pays ${request.toCountry} in ${country.currency}, not ${request.destinationCurrency}.` };
  }
  const { receiver } = request;
  const given = (request.receiverName ?? receiver.name ?? '').trim();
  if (request.rail === 'bank_transfer') {
    const accountNumber = receiver.accountNumber;
    if (!accountNumber || !/^\d+$/.test(accountNumber)) return { refusal: 'Paystack pays bank accounts by their account number (digits only).' };
    const bankCode = receiver.bankCode?.trim();
    if (!bankCode) return { refusal: "Paystack needs the receiver's bank code (receiver.bankCode), from Paystack's bank list." };
    const business = country.businessCodes?.includes(bankCode.toUpperCase()) ?? false;
    return {
      body: {
        type: business ? 'mobile_money_business' : country.bankType,
        // Paystack's schema requires a name; without one given, the account number stands in.
        name: (given || accountNumber).slice(0, NAME_LENGTH_MAX),
        account_number: accountNumber,
        bank_code: business ? bankCode.toUpperCase() : bankCode,
        currency: country.currency,
      },
    };
  }
  // mobile_money
  const phone = receiver.phone ? nationalPhone(receiver.phone, country.mobileMoneyCallingCode!) : undefined;
  if (!phone) return { refusal: `Paystack pays mobile money to ${request.toCountry} phone numbers only.` };
  const operators = await directory.operators(request.toCountry);
  const operator = findOperator(operators, receiver.provider);
  if (!operator) {
    const names = operators.map((op) => `${op.name} (${op.code})`).join(', ') || 'none listed now';
    return {
      refusal: receiver.provider
        ? `Paystack has no mobile money operator "${receiver.provider}" in ${request.toCountry}; it lists ${names}.`
        : `Name the receiver's mobile money operator (receiver.provider); Paystack lists ${names} in ${request.toCountry}.`,
    };
  }
  return {
    body: { type: 'mobile_money', name: (given || phone).slice(0, NAME_LENGTH_MAX), account_number: phone, bank_code: operator.code, currency: country.currency },
  };
}

/** Creates (or retrieves) the recipient; a refusal is Paystack's 4xx answer (unknown bank code, account that does not resolve...). */
export async function createRecipient(client: PaystackClient, body: RecipientBody): Promise<CreatedRecipient> {
  const answer = await client.post('/transferrecipient', { ...body });
  if ((answer.httpStatus === 200 || answer.httpStatus === 201) && answer.body.status) {
    const code = (answer.body.data as { recipient_code?: unknown } | undefined)?.recipient_code;
    if (typeof code === 'string' && code !== '') return { recipientCode: code };
    throw new PaystackUnavailable('Paystack POST /transferrecipient answered without a recipient_code');
  }
  if (isRefusal(answer)) {
    return { refusal: `Paystack refused the receiver: ${paystackMessage(answer.body) || `status ${answer.httpStatus}`}.` };
  }
  throw new PaystackUnavailable(`Paystack POST /transferrecipient answered ${answer.httpStatus}: ${paystackMessage(answer.body)}`);
}
