import { TILL_STAFF_NAME_LENGTH_MAX } from '@tapline/shared/limits';
import type { TillStaffDoc } from '@tapline/shared/sync-protocol';
import { textProblem, textProblemMessage } from '@tapline/shared/text';
import type { AppContext } from '../../context.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { tillPinVerifier } from './pin.ts';
import { type StaffChange, type StaffRow, findStaff, insertStaff, listStaff, updateStaff } from './store.ts';


export function staffRecord(row: StaffRow) {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    active: row.active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    removedAt: row.removed_at?.toISOString() ?? null,
  };
}

/** A member as the kiosks' replica holds it (collection till_staff): removed ones as deletions. */
export function staffDocument(row: StaffRow): TillStaffDoc {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    active: row.active && row.removed_at === null,
    pinVerifier: row.pin_verifier,
    updatedAt: row.updated_at.toISOString(),
    serverSeq: row.server_seq,
    _deleted: row.removed_at !== null,
  };
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest('validation_failed', 'name must not be blank', [{ field: 'name', message: 'must not be blank' }]);
  const problem = textProblem(trimmed, TILL_STAFF_NAME_LENGTH_MAX);
  if (problem) throw badRequest('validation_failed', textProblemMessage('name', problem, TILL_STAFF_NAME_LENGTH_MAX), [{ field: 'name', message: problem }]);
  return trimmed;
}

/** docs/till.md: the merchant's till staff. Every change streams to the merchant's connected kiosks. */
export function tillStaffService(context: AppContext) {
  const { db } = context;
  const streamed = (row: StaffRow) => {
    context.sync.staffChanged(row.merchant_id, [staffDocument(row)]);
    return row;
  };

  return {
    async list(merchantId: string, options: { includeRemoved: boolean; limit: number; offset: number }) {
      return listStaff(db, merchantId, options);
    },

    async get(merchantId: string, id: string): Promise<StaffRow> {
      const row = await findStaff(db, merchantId, id);
      if (!row) throw notFound('staff_not_found', `No till staff member ${id}`);
      return row;
    },

    /** `derived`: from the Idempotency-Key, so a retry answers the member its first run added. */
    async create(merchantId: string, input: { name: string; role: 'cashier' | 'manager'; pin: string }, derived: string | undefined): Promise<StaffRow> {
      const name = cleanName(input.name);
      const id = derived ? `staff_${derived.replaceAll('-', '').slice(0, 24)}` : newId('staff');
      if (derived) {
        const existing = await findStaff(db, merchantId, id);
        if (existing) return existing;
      }
      // The slow KDF runs before the transaction: the merchant's row is not held while it works.
      const verifier = await tillPinVerifier(input.pin);
      return streamed(await db.transaction((tx) => insertStaff(tx, { id, merchant_id: merchantId, name, role: input.role, pin_verifier: verifier }, context.now())));
    },

    async update(merchantId: string, id: string, input: { name?: string | undefined; role?: 'cashier' | 'manager' | undefined; active?: boolean | undefined; pin?: string | undefined }): Promise<StaffRow> {
      const change: StaffChange = {
        name: input.name === undefined ? undefined : cleanName(input.name),
        role: input.role,
        active: input.active,
        pin_verifier: input.pin === undefined ? undefined : await tillPinVerifier(input.pin),
      };
      const row = await db.transaction((tx) => updateStaff(tx, merchantId, id, change, context.now()));
      if (!row) throw notFound('staff_not_found', `No till staff member ${id}`);
      return streamed(row);
    },

    async remove(merchantId: string, id: string): Promise<StaffRow> {
      const row = await db.transaction((tx) => updateStaff(tx, merchantId, id, { removed: true, active: false }, context.now()));
      if (!row) throw notFound('staff_not_found', `No till staff member ${id}`);
      return streamed(row);
    },
  };
}
