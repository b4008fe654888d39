import { CreateStaffBody, ErrorBody, ListOf, ShiftDetail, ShiftListQuery, ShiftParams, ShiftRecord, StaffListQuery, StaffRecord, UpdateStaffBody } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { derivedUuid } from '../../http/idempotency.ts';
import { shiftsService } from './shifts.ts';
import { staffRecord, tillStaffService } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const merchantOnly = { auth: ['merchant'] } as const;
const IdParams = ShiftParams;

const STAFF_RULES = `Till staff sign in at the kiosk with their personal PIN (4 to 8 digits), online or offline. The PIN is
stored only as a PBKDF2-SHA256 verifier (600,000 iterations), which the merchant's kiosks receive in their replica
(collection till_staff) so that a till can check it while offline; no answer ever carries the PIN or the verifier.
Staff belong to the merchant in both modes. Reads: every dashboard role; changes: owner and manager.`;

/** docs/till.md: the merchant's till staff and the shifts they run. */
export async function tillStaffRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const staff = tillStaffService(context);
  const shifts = shiftsService(context);
  const merchantOf = (request: Parameters<typeof principalAs>[0]) => principalAs(request, 'merchant').merchantId;

  app.get('/api/merchant/staff', {
    config: merchantOnly,
    schema: { tags: ['till'], summary: 'The merchant\'s till staff, by name', description: STAFF_RULES, querystring: StaffListQuery, response: { 200: ListOf(StaffRecord), ...errors } },
  }, async (request) => {
    const { limit = 20, offset = 0, includeRemoved = false } = request.query;
    const page = await staff.list(merchantOf(request), { includeRemoved, limit, offset });
    return { data: page.rows.map(staffRecord), total: page.total, limit, offset };
  });

  app.post('/api/merchant/staff', {
    config: { ...merchantOnly, idempotency: 'optional' },
    schema: { tags: ['till'], summary: 'Add a member of the till staff with their PIN (Idempotency-Key honoured)', description: STAFF_RULES, body: CreateStaffBody, response: { 201: StaffRecord, ...errors } },
  }, async (request, reply) => reply.status(201).send(staffRecord(await staff.create(merchantOf(request), request.body, derivedUuid(request, 'staff')))));

  app.get('/api/merchant/staff/:id', {
    config: merchantOnly,
    schema: { tags: ['till'], summary: 'One member of the till staff', description: 'Unknown: 404 `staff_not_found`.', params: IdParams, response: { 200: StaffRecord, ...errors } },
  }, async (request) => staffRecord(await staff.get(merchantOf(request), request.params.id)));

  app.patch('/api/merchant/staff/:id', {
    config: merchantOnly,
    schema: { tags: ['till'], summary: 'Rename, change the role, (de)activate or reset the PIN of a member', description: 'Unknown or removed member: 404 `staff_not_found`.', params: IdParams, body: UpdateStaffBody, response: { 200: StaffRecord, ...errors } },
  }, async (request) => staffRecord(await staff.update(merchantOf(request), request.params.id, request.body)));

  app.delete('/api/merchant/staff/:id', {
    config: merchantOnly,
    schema: { tags: ['till'], summary: 'Remove a member: they can no longer sign in at any till (their past sales and shifts keep their id)', description: 'Unknown or already removed: 404 `staff_not_found`.', params: IdParams, response: { 200: StaffRecord, ...errors } },
  }, async (request) => staffRecord(await staff.remove(merchantOf(request), request.params.id)));

  app.get('/api/merchant/shifts', {
    config: merchantOnly,
    schema: { tags: ['till'], summary: 'Cashier shifts at the merchant\'s tills, newest first', querystring: ShiftListQuery, response: { 200: ListOf(ShiftRecord), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0, terminalId, cashierId, status } = request.query;
    return shifts.list({ merchantId: principal.merchantId, mode: principal.mode }, { terminalId, cashierId, status, limit, offset });
  });

  app.get('/api/merchant/shifts/:id', {
    config: merchantOnly,
    schema: { tags: ['till'], summary: 'One shift with its events', description: 'Unknown: 404 `shift_not_found`.', params: IdParams, response: { 200: ShiftDetail, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    return shifts.get({ merchantId: principal.merchantId, mode: principal.mode, terminalId: null }, request.params.id);
  });

  app.get('/api/pos/shifts/:id', {
    config: { auth: ['terminal'] },
    schema: { tags: ['till'], summary: 'One of this terminal\'s shifts with its events, as the server has them', description: 'Unknown or another till\'s: 404 `shift_not_found`.', params: IdParams, response: { 200: ShiftDetail, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'terminal');
    return shifts.get({ merchantId: principal.merchantId, mode: principal.mode, terminalId: principal.terminalId }, request.params.id);
  });
}
