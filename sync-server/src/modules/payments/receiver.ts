import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { badRequest } from '../../http/errors.ts';
import { type Rail, RAIL_INFO } from './rails.ts';

/** The receiver as stored and echoed: one normalised destination. */
export interface Receiver {
  type: 'phone' | 'account' | 'handle';
  phone?: string;
  /** The phone number's country, from libphonenumber-js. */
  phoneCountry?: string;
  accountNumber?: string;
  bankCode?: string;
  branchCode?: string;
  accountType?: 'savings' | 'current';
  handle?: string;
  provider?: string;
  name?: string;
}

export type ReceiverInput =
  | string
  | {
      phone?: string | undefined;
      accountNumber?: string | undefined;
      bankCode?: string | undefined;
      branchCode?: string | undefined;
      accountType?: 'savings' | 'current' | undefined;
      handle?: string | undefined;
      provider?: string | undefined;
      name?: string | undefined;
    };

const E164 = /^\+[1-9]\d{6,14}$/;
const ACCOUNT = /^(?:\d{6,20}|[A-Z]{2}\d{2}[A-Z0-9]{10,30})$/;
const HANDLE = /^@?[a-z0-9_.]{3,30}$/;

function invalid(message: string): never {
  throw badRequest('receiver_invalid', message);
}

function phone(text: string): Receiver {
  const trimmed = text.replace(/[\s-]/g, '');
  if (!E164.test(trimmed)) invalid('receiver phone must be in E.164 form: + then country code and number, e.g. +2348012345678');
  const parsed = parsePhoneNumberFromString(trimmed);
  if (!parsed?.isValid()) invalid(`receiver ${text} is not a valid phone number`);
  return { type: 'phone', phone: parsed.number, ...(parsed.country ? { phoneCountry: parsed.country } : {}) };
}

function account(text: string): Receiver {
  const normalised = text.replace(/\s/g, '').toUpperCase();
  if (!ACCOUNT.test(normalised)) invalid('receiver account number must be 6 to 20 digits or an IBAN');
  return { type: 'account', accountNumber: normalised };
}

function handle(text: string): Receiver {
  const normalised = text.trim().toLowerCase();
  if (!HANDLE.test(normalised) || /^@?\d+$/.test(normalised)) invalid('receiver handle must be an @handle: 3 to 30 of a-z, 0-9, _ and .');
  return { type: 'handle', handle: normalised.replace(/^@/, '') };
}

/**
 * Reads the receiver in its forms: an E.164 phone ("+254712345678"), an account number
 * ("0123456789" or an IBAN), an @handle, or an object {phone | accountNumber (+ bankCode) |
 * handle, provider?, name?}. Then checks it suits the rail: mobile_money and cash_pickup need a
 * phone of the recipient country, bank_transfer an account number, wallet an @handle.
 */
export function parseReceiver(input: ReceiverInput, rail: Rail, toCountry: string): Receiver {
  let receiver: Receiver;
  if (typeof input === 'string') {
    const text = input.trim();
    if (text.startsWith('+')) receiver = phone(text);
    else if (text.startsWith('@')) receiver = handle(text);
    else if (ACCOUNT.test(text.replace(/\s/g, '').toUpperCase())) receiver = account(text);
    else if (rail === 'wallet') receiver = handle(text);
    else invalid('receiver must be an E.164 phone (+234...), an account number, an @handle, or an object with a phone');
  } else {
    const given = [input.phone, input.accountNumber, input.handle].filter((value) => value !== undefined && value !== '');
    if (given.length !== 1) invalid('receiver object must carry exactly one of phone, accountNumber or handle');
    if (input.phone) receiver = phone(input.phone);
    else if (input.accountNumber) {
      receiver = {
        ...account(input.accountNumber),
        ...(input.bankCode?.trim() ? { bankCode: input.bankCode.trim() } : {}),
        ...(input.branchCode?.trim() ? { branchCode: input.branchCode.trim() } : {}),
        ...(input.accountType ? { accountType: input.accountType } : {}),
      };
    }
    else receiver = handle(input.handle!);
    if (input.provider) receiver.provider = input.provider;
    if (input.name) receiver.name = input.name;
  }
  const needs = RAIL_INFO[rail].receiver;
  if (needs === 'phone' && receiver.type !== 'phone') invalid(`rail ${rail} pays a phone number: send receiver as an E.164 phone or {phone}`);
  if (needs === 'account' && receiver.type !== 'account') invalid(`rail ${rail} pays a bank account: send receiver as an account number or {accountNumber, bankCode?}`);
  if (needs === 'handle' && receiver.type !== 'handle') invalid(`rail ${rail} pays a Tapline wallet: send receiver as an @handle`);
  if (needs === 'phone' && receiver.phoneCountry && receiver.phoneCountry !== toCountry) {
    invalid(`receiver ${receiver.phone} is a ${receiver.phoneCountry} number but toCode is ${toCountry}`);
  }
  return receiver;
}

/** Nigerian bank accounts are 10-digit NUBANs. */
const NUBAN = /^\d{10}$/;

/**
 * What a payment provider needs beyond the sandbox's forms, checked before a live payout is
 * debited: a bank transfer names its bank (the provider's bank code), and a Nigerian account is a
 * 10-digit NUBAN. The sandbox keeps accepting the simpler forms the spec shows.
 */
export function checkLiveReceiver(receiver: Receiver, rail: Rail, toCountry: string): void {
  if (rail !== 'bank_transfer' || receiver.type !== 'account') return;
  if (!receiver.bankCode) invalid('a live bank transfer needs the bank: send receiver as {accountNumber, bankCode} (the bank code of the recipient\'s bank, e.g. 058)');
  if (toCountry === 'NG' && !NUBAN.test(receiver.accountNumber ?? '')) invalid('a Nigerian bank account number is the 10-digit NUBAN');
}
