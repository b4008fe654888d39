import { type Static, Type } from 'typebox';
import { CountryCode, CurrencyCode, HandleInput, ListQuery, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { PayReceiver } from './payments.ts';
import { DESCRIPTION_LENGTH_MAX, ID_LENGTH_MAX, NAME_LENGTH_MAX, PAYROLL_ITEMS_MAX, REFERENCE_LENGTH_MAX } from '../limits.ts';

/** Spec: payroll disbursement is listed by path only; CONTRACT.md's Stripe rule decides the rest. */
export const PAYROLL_RUN_STATUSES = ['draft', 'processing', 'completed', 'partially_failed', 'failed', 'cancelled'] as const;
export type PayrollRunStatus = (typeof PAYROLL_RUN_STATUSES)[number];
export const PayrollRunStatus = literalUnion(PAYROLL_RUN_STATUSES);

export const PAYROLL_ITEM_STATUSES = ['pending', 'paid', 'failed'] as const;
export type PayrollItemStatus = (typeof PAYROLL_ITEM_STATUSES)[number];
export const PayrollItemStatus = literalUnion(PAYROLL_ITEM_STATUSES);

/** Rails that pay a person out (the others take money in). */
export const PAYROLL_RAILS = ['mobile_money', 'bank_transfer', 'cash_pickup'] as const;
export const PayrollRail = literalUnion(PAYROLL_RAILS);

const PAYROLL_ITEM_FIELDS = {
  amount: MajorAmount,
  handle: Type.Optional(HandleInput),
  rail: Type.Optional(PayrollRail),
  receiver: Type.Optional(PayReceiver),
  toCode: Type.Optional(CountryCode),
  receiverName: Type.Optional(Type.String({ maxLength: NAME_LENGTH_MAX })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX, description: 'Your reference for the line; on a rail item it is the payment\'s reference (sandbox: test_failure fails the payout)' })),
  externalRef: Type.Optional(Type.String({ minLength: 1, maxLength: REFERENCE_LENGTH_MAX, description: 'Your id for the line (an employee number): unique within the run' })),
};
const ITEM_DESTINATION = 'Either handle (a Tapline wallet in the run\'s currency, credited at once) or rail + receiver + toCode (+ receiverName), paid out as a payment';

export const PayrollItemInput = Type.Object(PAYROLL_ITEM_FIELDS, { description: ITEM_DESTINATION });
export type PayrollItemInput = Static<typeof PayrollItemInput>;

export const CreatePayrollRunBody = Type.Object({
  currency: CurrencyCode,
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX })),
  items: Type.Optional(Type.Array(PayrollItemInput, { maxItems: PAYROLL_ITEMS_MAX })),
});
export type CreatePayrollRunBody = Static<typeof CreatePayrollRunBody>;

/** POST /api/payroll: create and submit in one call. */
export const PayrollBody = Type.Object({
  currency: CurrencyCode,
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX })),
  items: Type.Array(PayrollItemInput, { minItems: 1, maxItems: PAYROLL_ITEMS_MAX }),
});
export type PayrollBody = Static<typeof PayrollBody>;

export const AddPayrollItemBody = Type.Object({ runId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'A draft run' }), ...PAYROLL_ITEM_FIELDS }, { description: ITEM_DESTINATION });
export type AddPayrollItemBody = Static<typeof AddPayrollItemBody>;

export const PayrollItemCounts = Type.Object({
  pending: Type.Integer(),
  paid: Type.Integer(),
  failed: Type.Integer(),
});

export const PayrollSkippedItem = Type.Object({
  index: Type.Integer({ description: 'Position in the request\'s items' }),
  externalRef: Type.String(),
  reason: Type.String(),
});

export const PayrollRunRecord = Type.Object({
  id: Type.String({ description: 'prun_ + opaque' }),
  status: PayrollRunStatus,
  currency: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  reference: Type.Union([Type.String(), Type.Null()]),
  mode: Mode,
  itemCount: Type.Integer(),
  totalAmount: Type.Number({ description: 'Sum of the items, major units' }),
  paidAmount: Type.Number({ description: 'Sum of the paid items, major units' }),
  counts: PayrollItemCounts,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  submittedAt: Type.Union([Timestamp, Type.Null()]),
  endedAt: Type.Union([Timestamp, Type.Null()]),
  skipped: Type.Optional(Type.Array(PayrollSkippedItem, { description: 'Only on bulk create: items left out because their externalRef was already in the run' })),
});
export type PayrollRunRecord = Static<typeof PayrollRunRecord>;

export const PayrollItemRecord = Type.Object({
  id: Type.String({ description: 'pitm_ + opaque' }),
  runId: Type.String(),
  status: PayrollItemStatus,
  amount: Type.Number({ description: 'Major units of currency' }),
  currency: Type.String(),
  handle: Type.Optional(Type.String()),
  rail: Type.Optional(Type.String()),
  receiver: Type.Optional(Type.Record(Type.String(), Type.String())),
  toCode: Type.Optional(Type.String()),
  receiverName: Type.Optional(Type.String()),
  reference: Type.Union([Type.String(), Type.Null()]),
  externalRef: Type.Union([Type.String(), Type.Null()]),
  failureReason: Type.Optional(Type.String()),
  transferId: Type.Optional(Type.String({ description: 'The ledger transfer that paid an on-us item' })),
  paymentId: Type.Optional(Type.String({ description: 'The payment of a rail item (GET /api/payments/<id>)' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type PayrollItemRecord = Static<typeof PayrollItemRecord>;

export const PayrollRunListQuery = Type.Object({ ...ListQuery.properties, status: Type.Optional(PayrollRunStatus) });

export const PayrollItemListQuery = Type.Object({ runId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }), ...ListQuery.properties, status: Type.Optional(PayrollItemStatus) });
