import { isSupportedCurrency } from '@tapline/shared/countries';
import { AMOUNT_MAJOR_MAX, ID_LENGTH_MAX, SHIFT_REASON_LENGTH_MAX } from '@tapline/shared/limits';
import { toMajor } from '@tapline/shared/money';
import { SHIFT_EVENT_KINDS, type ShiftEventDoc, type ShiftEventKind } from '@tapline/shared/sync-protocol';
import { storableText, textProblem, textProblemMessage } from '@tapline/shared/text';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { type NewEvent, enqueueEvent } from '../../events/outbox.ts';
import { notFound } from '../../http/errors.ts';
import { CAPTURED_AT_PROBLEM, type CollectionSettler, type PushTerminal, inCapturedOrder, inSavepoint, parseCapturedAt, schemaProblems, timeDecline } from '../push/index.ts';
import { staffByIds } from './store.ts';
import {
  type ShiftEventRow,
  type ShiftView,
  applyShiftEvent,
  eventsOfShift,
  findShiftEvents,
  findShiftView,
  insertShift,
  insertShiftEvent,
  listShiftViews,
  lockShift,
} from './shifts-store.ts';

export { terminalShiftEventsAfter } from './shifts-store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The events that say why the drawer opened or cash moved: a reason is required. */
const NEEDS_REASON: ReadonlySet<ShiftEventKind> = new Set(['paid_in', 'paid_out', 'no_sale']);

interface Candidate {
  id: string;
  shiftId: string;
  kind: ShiftEventKind | 'unknown';
  cashierId: string;
  amount: number;
  currency: string;
  reason: string | null;
  approvedBy: string | null;
  expected: number | null;
  capturedAt: Date;
  invalid: string | null;
}

type Verdict = { status: 'accepted' } | { status: 'declined'; code: string; reason: string };
const decline = (code: string, reason: string): Verdict => ({ status: 'declined', code, reason });
const isInteger = (value: unknown, minimum: number): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum;

function candidateOf(doc: Record<string, unknown>, id: string, scopeCurrency: string): Candidate {
  const problems: string[] = [];
  const shiftId = typeof doc.shiftId === 'string' && UUID.test(doc.shiftId.toLowerCase()) ? doc.shiftId.toLowerCase() : '00000000-0000-0000-0000-000000000000';
  if (shiftId !== (typeof doc.shiftId === 'string' ? doc.shiftId.toLowerCase() : null)) problems.push('shiftId must be the shift\'s UUID');
  const kind = (SHIFT_EVENT_KINDS as readonly unknown[]).includes(doc.kind) ? (doc.kind as ShiftEventKind) : 'unknown';
  if (kind === 'unknown') problems.push(`kind must be one of ${SHIFT_EVENT_KINDS.join(', ')}`);
  let cashierId = typeof doc.cashierId === 'string' ? doc.cashierId : '';
  if (!cashierId.trim() || textProblem(cashierId, ID_LENGTH_MAX)) {
    problems.push(`cashierId must be a till staff id of at most ${ID_LENGTH_MAX} characters`);
    cashierId = storableText(cashierId, ID_LENGTH_MAX) || 'unknown';
  }
  const amount = isInteger(doc.amountMinor, 0) ? doc.amountMinor : 0;
  if (!isInteger(doc.amountMinor, 0)) problems.push('amountMinor must be an integer of minor units from 0 up');
  else if ((kind === 'paid_in' || kind === 'paid_out') && amount === 0) problems.push(`amountMinor of a ${kind} must be more than 0`);
  const sent = typeof doc.currency === 'string' ? doc.currency.toUpperCase() : null;
  const currency = sent !== null && /^[A-Z]{3}$/.test(sent) && isSupportedCurrency(sent) ? sent : scopeCurrency;
  if (sent === null || currency !== sent) problems.push('currency must be a supported ISO 4217 code (an African currency, USD, GBP or EUR)');
  else if (toMajor(amount, currency) > AMOUNT_MAJOR_MAX) problems.push(`amountMinor must be at most ${AMOUNT_MAJOR_MAX} ${currency} in major units`);
  let reason: string | null = null;
  if (typeof doc.reason === 'string' && doc.reason.trim() !== '') {
    const text = doc.reason.trim();
    const problem = textProblem(text, SHIFT_REASON_LENGTH_MAX);
    if (problem) problems.push(textProblemMessage('reason', problem, SHIFT_REASON_LENGTH_MAX));
    reason = problem ? storableText(text, SHIFT_REASON_LENGTH_MAX) : text;
  } else if (doc.reason !== undefined && doc.reason !== null && typeof doc.reason !== 'string') problems.push('reason must be a string');
  if (kind !== 'unknown' && NEEDS_REASON.has(kind) && reason === null) problems.push(`reason is required for ${kind}`);
  let approvedBy: string | null = null;
  if (typeof doc.approvedBy === 'string' && doc.approvedBy.trim() !== '' && !textProblem(doc.approvedBy, ID_LENGTH_MAX)) approvedBy = doc.approvedBy;
  else if (doc.approvedBy !== undefined && doc.approvedBy !== null) problems.push(`approvedBy must be a till staff id of at most ${ID_LENGTH_MAX} characters`);
  if (kind === 'no_sale' && approvedBy === null && !problems.some((p) => p.startsWith('approvedBy'))) problems.push('approvedBy is required for no_sale: the manager who approved it');
  let expected: number | null = null;
  if (doc.expectedMinor !== undefined && doc.expectedMinor !== null) {
    if (isInteger(doc.expectedMinor, Number.MIN_SAFE_INTEGER)) expected = doc.expectedMinor;
    else problems.push('expectedMinor must be an integer of minor units');
  }
  if (kind === 'close' && expected === null && !problems.some((p) => p.startsWith('expectedMinor'))) problems.push('expectedMinor is required for close: what the till expected in the drawer');
  const capturedAt = parseCapturedAt(doc.capturedAt);
  if (capturedAt === null) problems.push(CAPTURED_AT_PROBLEM);
  problems.push(...schemaProblems('shift_events', doc, problems));
  return { id, shiftId, kind, cashierId, amount, currency, reason, approvedBy, expected, capturedAt: capturedAt ?? new Date(0), invalid: problems.length > 0 ? problems.join('; ') : null };
}

function rowOf(terminal: PushTerminal, event: Candidate, verdict: Verdict, now: Date, seq: number): ShiftEventRow {
  return {
    id: event.id,
    terminal_id: terminal.terminalId,
    merchant_id: terminal.merchantId,
    mode: terminal.mode,
    shift_id: event.shiftId,
    kind: event.kind,
    cashier_id: event.cashierId,
    amount: event.amount,
    currency: event.currency,
    reason: event.reason,
    approved_by: event.approvedBy,
    expected: event.expected,
    captured_at: event.capturedAt,
    received_at: now,
    status: verdict.status,
    decline_code: verdict.status === 'declined' ? verdict.code : null,
    decline_reason: verdict.status === 'declined' ? verdict.reason : null,
    settled_at: now,
    server_seq: seq,
  };
}

/** The master state of a shift event, as the terminal's replica holds it. */
export function shiftEventDocument(row: ShiftEventRow): ShiftEventDoc {
  return {
    id: row.id,
    terminalId: row.terminal_id,
    shiftId: row.shift_id,
    kind: (SHIFT_EVENT_KINDS as readonly string[]).includes(row.kind) ? (row.kind as ShiftEventKind) : 'open',
    cashierId: row.cashier_id,
    amountMinor: row.amount,
    currency: row.currency,
    capturedAt: row.captured_at.toISOString(),
    status: row.status,
    serverSeq: row.server_seq,
    ...(row.reason ? { reason: row.reason } : {}),
    ...(row.approved_by ? { approvedBy: row.approved_by } : {}),
    ...(row.expected !== null ? { expectedMinor: row.expected } : {}),
    ...(row.decline_code ? { declineCode: row.decline_code, declineReason: row.decline_reason ?? '' } : {}),
    settledAt: row.settled_at.toISOString(),
  };
}

function eventRecord(row: ShiftEventRow, names: ReadonlyMap<string, { name: string }>) {
  return {
    id: row.id,
    kind: row.kind as ShiftEventKind,
    amount: toMajor(row.amount, row.currency),
    reason: row.reason,
    approvedBy: row.approved_by,
    approvedByName: row.approved_by ? (names.get(row.approved_by)?.name ?? null) : null,
    cashierId: row.cashier_id,
    capturedAt: row.captured_at.toISOString(),
    status: row.status,
    declineCode: row.decline_code,
  };
}

/** A shift in major units; `expected`, `counted` and `variance` once it closed. */
export function shiftRecord(row: ShiftView) {
  const major = (minor: number) => toMajor(minor, row.currency);
  const closed = row.closed_at !== null && row.counted !== null && row.expected !== null;
  return {
    id: row.id,
    terminalId: row.terminal_id,
    terminalName: row.terminal_name,
    cashierId: row.cashier_id,
    cashierName: row.cashier_name,
    status: row.closed_at === null ? ('open' as const) : ('closed' as const),
    currency: row.currency,
    openedAt: row.opened_at.toISOString(),
    closedAt: row.closed_at?.toISOString() ?? null,
    float: major(row.float),
    paidIn: major(row.paid_in),
    paidOut: major(row.paid_out),
    noSales: row.no_sales,
    cashSales: major(row.cash_sales),
    cashRefunds: major(row.cash_refunds),
    expected: row.expected === null ? null : major(row.expected),
    counted: row.counted === null ? null : major(row.counted),
    variance: closed ? major(row.counted! - row.expected!) : null,
    zReportId: row.z_report_id,
  };
}

function shiftEvent(row: ShiftEventRow, now: Date): NewEvent | null {
  if (row.status !== 'accepted' || (row.kind !== 'open' && row.kind !== 'close')) return null;
  return {
    merchantId: row.merchant_id,
    mode: row.mode,
    type: row.kind === 'open' ? 'pos.shift.opened' : 'pos.shift.closed',
    data: {
      shiftId: row.shift_id,
      terminalId: row.terminal_id,
      cashierId: row.cashier_id,
      currency: row.currency,
      ...(row.kind === 'open'
        ? { float: toMajor(row.amount, row.currency) }
        : { counted: toMajor(row.amount, row.currency), expected: toMajor(row.expected ?? 0, row.currency), variance: toMajor(row.amount - (row.expected ?? 0), row.currency) }),
      at: row.captured_at.toISOString(),
    },
    at: now,
  };
}

const SETTLEMENT_FAILED = decline('settlement_failed', 'The server could not record this event and recorded it as declined so that the terminal\'s other events are not held up');

/**
 * Shift events pushed by a terminal (collection `shift_events`), in the order they happened: each
 * checked, then applied to its shift under the shift's row lock. A shift opens once, belongs to
 * the terminal that opened it, takes nothing after it closed; the cashier (and a no-sale's
 * approving manager) must be the merchant's till staff.
 */
export function shiftEventSettler(_context: AppContext): CollectionSettler<ShiftEventRow, ShiftEventDoc> {
  async function verdictOf(tx: Queryable, terminal: PushTerminal, event: Candidate, now: Date): Promise<Verdict> {
    if (event.invalid !== null) return decline('invalid_document', event.invalid);
    if (event.currency !== terminal.limits.currency) return decline('currency_not_accepted', `This till counts cash in ${terminal.limits.currency} only`);
    const time = timeDecline(event.capturedAt, now, terminal.createdAt);
    if (time) return decline(time.code, time.reason);
    const staff = await staffByIds(tx, terminal.merchantId, [event.cashierId, ...(event.approvedBy ? [event.approvedBy] : [])]);
    if (!staff.has(event.cashierId)) return decline('cashier_unknown', `${event.cashierId} is not one of the merchant's till staff`);
    if (event.kind === 'no_sale' && staff.get(event.approvedBy!)?.role !== 'manager') return decline('approver_not_manager', 'A drawer opening without a sale needs a manager\'s approval');
    const shift = await lockShift(tx, event.shiftId);
    if (event.kind === 'open') {
      if (shift) return decline('shift_already_open', `Shift ${event.shiftId} was opened already`);
      await insertShift(tx, { id: event.shiftId, terminal_id: terminal.terminalId, merchant_id: terminal.merchantId, mode: terminal.mode, cashier_id: event.cashierId, currency: event.currency, opened_at: event.capturedAt, float: event.amount });
      return { status: 'accepted' };
    }
    if (!shift || shift.terminal_id !== terminal.terminalId) return decline('shift_not_open', `No shift ${event.shiftId} was opened at this till`);
    if (shift.closed_at !== null) return decline('shift_closed', `Shift ${event.shiftId} closed at ${shift.closed_at.toISOString()}`);
    await applyShiftEvent(tx, event.shiftId, { kind: event.kind, amount: event.amount, expected: event.expected, at: event.capturedAt });
    return { status: 'accepted' };
  }

  async function record(tx: Queryable, row: ShiftEventRow, now: Date): Promise<ShiftEventRow> {
    const inserted = await insertShiftEvent(tx, row);
    const event = shiftEvent(inserted, now);
    if (event) await enqueueEvent(tx, event);
    return inserted;
  }

  return {
    find: findShiftEvents,
    owner: (row) => ({ merchantId: row.merchant_id, mode: row.mode }),
    document: shiftEventDocument,
    idTaken: (terminal, pushed, now) =>
      shiftEventDocument(rowOf(terminal, candidateOf(pushed.doc, pushed.id, terminal.limits.currency), decline('id_taken', `Event id ${pushed.id} belongs to another merchant or mode: the terminal must make a new id`), now, 0)),

    async settle(tx, terminal, documents, now, isolate) {
      const rows: ShiftEventRow[] = [];
      for (const { candidate: event, seq } of inCapturedOrder(documents, (entry) => candidateOf(entry.doc, entry.id, terminal.limits.currency))) {
        const settle = async () => record(tx, rowOf(terminal, event, await verdictOf(tx, terminal, event, now), now, seq), now);
        if (!isolate) {
          rows.push(await settle());
          continue;
        }
        const outcome = await inSavepoint(tx, settle);
        rows.push(outcome.ok ? outcome.value : await record(tx, rowOf(terminal, event, SETTLEMENT_FAILED, now, seq), now));
      }
      return rows;
    },
  };
}

/** docs/till.md: shifts as the dashboard and the till read them. */
export function shiftsService(context: AppContext) {
  const { db } = context;
  return {
    async list(scope: { merchantId: string; mode: Mode }, filter: { terminalId?: string | undefined; cashierId?: string | undefined; status?: 'open' | 'closed' | undefined; limit: number; offset: number }) {
      const page = await listShiftViews(db, scope, filter);
      return { data: page.rows.map(shiftRecord), total: page.total, limit: filter.limit, offset: filter.offset };
    },

    async get(scope: { merchantId: string; mode: Mode; terminalId: string | null }, id: string) {
      const shift = UUID.test(id.toLowerCase()) ? await findShiftView(db, scope, id.toLowerCase()) : undefined;
      if (!shift) throw notFound('shift_not_found', `No shift ${id}`);
      const events = await eventsOfShift(db, shift.id);
      const names = await staffByIds(db, scope.merchantId, events.flatMap((event) => (event.approved_by ? [event.approved_by] : [])));
      return { ...shiftRecord(shift), events: events.map((event) => eventRecord(event, names)) };
    },
  };
}
