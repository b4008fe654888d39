// Our Nigerian billers (modules/bills/catalogue.ts) as Flutterwave bill items.
//
// Flutterwave pays bills in Nigeria only ("Bill Payments": "Only Nigerian billers"). Its items come
// from GET /v3/bill-categories (Node-v3 documentation/billPayments.md), each with biller_code,
// item_code, biller_name (what POST /v3/bills takes as `type`), name, short_name, country,
// is_airtime, label_name and amount (0: any amount). Item codes can change, so each biller is found
// in that list by the rule below, at payment time; the codes the SDK's documentation shows are
// noted. The list can be narrowed by category with the flags the SDK's listSchema names: airtime,
// data_bundle, power, cable (=1).
//
// | our biller         | category    | rule on the Flutterwave item (country NG)               | documented codes             |
// | ------------------ | ----------- | ------------------------------------------------------- | ---------------------------- |
// | mtn-ng-airtime     | airtime     | is_airtime, name or short_name says MTN                  | BIL099 / AT099, type AIRTIME |
// | airtel-ng-airtime  | airtime     | is_airtime, says Airtel                                  | BIL099 / AT099, type AIRTIME |
// | glo-ng-airtime     | airtime     | is_airtime, says Glo                                     | BIL099 / AT099, type AIRTIME |
// | 9mobile-ng-airtime | airtime     | is_airtime, says 9mobile (or Etisalat)                   | BIL099 / AT099, type AIRTIME |
// | ekedc-prepaid      | power       | says EKEDC or EKO, and PREPAID                           | BIL110 / UB134, EKEDC PREPAID TOPUP |
// | ikedc-prepaid      | power       | says IKEDC or IKEJA, and PREPAID                         | not in the documents         |
// | aedc-prepaid       | power       | says AEDC or ABUJA, and PREPAID                          | not in the documents         |
// | dstv-ng            | cable       | biller_name is DSTV (the any-amount "DSTV Payment" item) | BIL119 / CB141               |
// | gotv-ng            | cable       | biller_name is GOTV                                      | not in the documents         |
// | startimes-ng       | cable       | biller_name says STARTIMES                               | not in the documents         |
// | mtn-ng-data        | data_bundle | says MTN, and its amount is the plan's price             | not in the documents         |
// | airtel-ng-data     | data_bundle | says Airtel, and its amount is the plan's price          | not in the documents         |
//
// Cable bouquets are paid through the biller's any-amount item with the plan's price. Ghana and
// Kenya billers are not Flutterwave's.

export type BillCategoryFlag = 'airtime' | 'data_bundle' | 'power' | 'cable';

export interface BillCategory {
  biller_code: string;
  item_code: string;
  biller_name: string;
  name: string;
  short_name: string;
  country: string;
  is_airtime: boolean;
  amount: number;
}

export interface BillItemRule {
  flag: BillCategoryFlag;
  /** Whether the Flutterwave item is this biller's; `amount` is the bill's amount in major units. */
  matches(item: BillCategory, amount: number): boolean;
}

const says = (item: BillCategory, pattern: RegExp): boolean => pattern.test(`${item.name} ${item.short_name} ${item.biller_name}`);
const prepaid = (item: BillCategory, pattern: RegExp): boolean => says(item, pattern) && says(item, /prepaid/i) && !says(item, /postpaid/i);
const airtime = (pattern: RegExp): BillItemRule => ({ flag: 'airtime', matches: (item) => item.is_airtime && says(item, pattern) });
const power = (pattern: RegExp): BillItemRule => ({ flag: 'power', matches: (item) => prepaid(item, pattern) });
const cable = (name: RegExp): BillItemRule => ({ flag: 'cable', matches: (item) => name.test(item.biller_name.trim()) && item.amount === 0 });
const data = (pattern: RegExp): BillItemRule => ({ flag: 'data_bundle', matches: (item, amount) => !item.is_airtime && says(item, pattern) && item.amount === amount });

export const BILL_ITEM_RULES: Readonly<Record<string, BillItemRule>> = {
  'mtn-ng-airtime': airtime(/\bmtn\b/i),
  'airtel-ng-airtime': airtime(/\bairtel\b/i),
  'glo-ng-airtime': airtime(/\bglo\b/i),
  '9mobile-ng-airtime': airtime(/\b9mobile\b|\betisalat\b/i),
  'ekedc-prepaid': power(/\bekedc\b|\beko\b/i),
  'ikedc-prepaid': power(/\bikedc\b|\bikeja\b/i),
  'aedc-prepaid': power(/\baedc\b|\babuja\b/i),
  'dstv-ng': cable(/^dstv$/i),
  'gotv-ng': cable(/^gotv$/i),
  'startimes-ng': cable(/^star ?times$/i),
  'mtn-ng-data': data(/\bmtn\b/i),
  'airtel-ng-data': data(/\bairtel\b/i),
};

export function readCategory(value: unknown): BillCategory | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const item = value as Record<string, unknown>;
  const text = (key: string): string => (typeof item[key] === 'string' ? (item[key] as string) : '');
  if (!text('biller_code') || !text('item_code') || !text('biller_name')) return undefined;
  return {
    biller_code: text('biller_code'),
    item_code: text('item_code'),
    biller_name: text('biller_name'),
    name: text('name'),
    short_name: text('short_name'),
    country: text('country').toUpperCase(),
    is_airtime: item.is_airtime === true,
    amount: typeof item.amount === 'number' ? item.amount : Number(item.amount ?? 0),
  };
}
