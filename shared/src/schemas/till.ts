import { Type } from 'typebox';
import { ListQuery, Nullable, Timestamp } from './common.ts';
import { ID_LENGTH_MAX, TILL_STAFF_NAME_LENGTH_MAX } from '../limits.ts';

// Till staff and cashier shifts (issue 25; docs/till.md).

const StaffRole = Type.Union([Type.Literal('cashier'), Type.Literal('manager')], { description: 'cashier: sells; manager: also approves a no-sale drawer opening' });
const TillPin = Type.String({ pattern: '^[0-9]{4,8}$', description: 'The staff member\'s personal till PIN, 4 to 8 digits (stored only as a PBKDF2 verifier)' });
const StaffName = Type.String({ minLength: 1, maxLength: TILL_STAFF_NAME_LENGTH_MAX });

export const StaffRecord = Type.Object({
  id: Type.String({ description: 'staff_…' }),
  name: Type.String(),
  role: StaffRole,
  active: Type.Boolean({ description: 'An inactive member cannot sign in at the till' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  removedAt: Nullable(Timestamp),
});

export const CreateStaffBody = Type.Object({ name: StaffName, role: StaffRole, pin: TillPin });
export const UpdateStaffBody = Type.Object({
  name: Type.Optional(StaffName),
  role: Type.Optional(StaffRole),
  active: Type.Optional(Type.Boolean()),
  pin: Type.Optional(TillPin),
}, { minProperties: 1 });
export const StaffListQuery = Type.Object({
  ...ListQuery.properties,
  includeRemoved: Type.Optional(Type.Boolean({ default: false })),
});

const Money = (description: string) => Type.Number({ description: `${description}, major units` });

export const ShiftRecord = Type.Object({
  id: Type.String({ description: 'The shift\'s id (a UUID made by the kiosk)' }),
  terminalId: Type.String(),
  terminalName: Type.String(),
  cashierId: Type.String(),
  cashierName: Nullable(Type.String()),
  status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  currency: Type.String(),
  openedAt: Timestamp,
  closedAt: Nullable(Timestamp),
  float: Money('Cash counted into the drawer at the start'),
  paidIn: Money('Cash put in during the shift'),
  paidOut: Money('Cash taken out during the shift'),
  noSales: Type.Integer({ description: 'Drawer openings without a sale' }),
  cashSales: Money('Cash the drawer kept for the shift\'s till sales (handed over minus change), as the server has them'),
  cashRefunds: Money('Cash given back for refunds made in the shift'),
  expected: Nullable(Money('What the till expected in the drawer at close: float + cash sales - cash refunds + paid in - paid out')),
  counted: Nullable(Money('The blind count at close')),
  variance: Nullable(Money('counted - expected: negative is short, positive over')),
  zReportId: Nullable(Type.String()),
});

export const ShiftEventRecord = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('open'), Type.Literal('paid_in'), Type.Literal('paid_out'), Type.Literal('no_sale'), Type.Literal('close')]),
  amount: Money('The float, the amount paid in or out, or the count'),
  reason: Nullable(Type.String()),
  approvedBy: Nullable(Type.String()),
  approvedByName: Nullable(Type.String()),
  cashierId: Type.String(),
  capturedAt: Timestamp,
  status: Type.Union([Type.Literal('accepted'), Type.Literal('declined')]),
  declineCode: Nullable(Type.String()),
});

export const ShiftDetail = Type.Object({ ...ShiftRecord.properties, events: Type.Array(ShiftEventRecord) });

export const ShiftListQuery = Type.Object({
  ...ListQuery.properties,
  terminalId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  cashierId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
});

export const ShiftParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });
