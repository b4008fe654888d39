import { ID_LENGTH_MAX, TENDER_RETURN_HOURS } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed-app.ts';
import {
  CloseDayBody,
  DayReport,
  ErrorBody,
  ListOf,
  ListQuery,
  ManagerPinBody,
  ManagerPinCheck,
  ManagerPinCheckBody,
  ManagerPinResponse,
  RefundBody,
  RefundRecord,
  ReportParams,
  SaleParams,
  SaleRecord,
  TenderReturnBody,
  TerminalReportParams,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs, principalOf } from '../../auth/hooks.ts';
import { forbidden, notFound } from '../../http/errors.ts';
import { derivedUuid } from '../../http/idempotency.ts';
import { idempotencyScope } from '../../auth/principal.ts';
import { checkManagerPin, setManagerPin } from './manager-pin.ts';
import { managerPinIsSet } from '../terminals/index.ts';
import { type SaleActor, refundsService } from './refunds.ts';
import { type TerminalActor, reportsService } from './reports.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const merchantOrTerminal = { auth: ['merchant', 'terminal'] } as const;
const TerminalParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });

/** The manager PIN stays out of the stored request hash; a refused PIN or a lock-out is not kept, so a retry with the right PIN runs. */
const pinAsCredential = {
  scope: (request: FastifyRequest) => idempotencyScope(request.credential.state === 'valid' ? request.credential.principal : undefined),
  secrets: ['managerPin'],
  beforeReplay: async () => undefined,
  forgetStatuses: [403, 429],
} as const;

function actorOf(request: FastifyRequest): SaleActor {
  const principal = principalOf(request);
  if (principal.kind === 'merchant') return { merchantId: principal.merchantId, mode: principal.mode, terminalId: null };
  if (principal.kind === 'terminal') return { merchantId: principal.merchantId, mode: principal.mode, terminalId: principal.terminalId };
  throw forbidden('credential_not_allowed', 'Sales need a merchant API key or a terminal token');
}

function terminalOf(request: FastifyRequest): TerminalActor {
  const principal = principalAs(request, 'terminal');
  return { merchantId: principal.merchantId, mode: principal.mode, terminalId: principal.terminalId };
}

const REFUND_RULES = `Only a completed POS session, an accepted offline payment or an accepted till sale. The money goes back from the merchant's wallet to the wallet
that paid, by a ledger transfer in the same transaction as the refund, its stock and its pos.refund.created event; a till sale gives back its
wallet tap that way first and the rest in cash from the drawer (no ledger movement), tenders saying which. A POS session that paid part of a
till sale is refunded through that sale (409 sale_in_till_sale), and so is an offline tap a till sale names as its offline_tap tender: it goes
back to its wallet like a wallet tap once the server accepted it (409 offline_tap_not_settled before), and a tap the server declined paid
nothing, so the sale's unpaid part is never refunded. A till sale's mobile money part (after its wallet tap, before its cash)
goes back to the phone that paid as a mobile_money payout from the merchant's wallet (a payment like POST /api/pay's, with its fee; the
sandbox in test mode; reference: the payout's, test_failure and test_reversal make the sandbox fail or reverse it), recorded in the
refund's transaction, its id in the refund's mobile_money tender reference. The refund's status follows the payout: pending, then
succeeded, or failed when the provider failed or reversed it: then failedAmount is what did not reach the phone, the sale's refunded
amount leaves it out and refundable grows by it (a new refund without lines pays the phone again with a new payout), and
pos.refund.failed is sent, in the transaction that ends the payment. A refund without a payout is succeeded at once. 409 sale_changed when
another refund of the sale got in between (send it again), 409 mobile_money_refund_unavailable when the refund would need more back than
the sale's tenders can return (docs/till.md). cashierId and shiftId record who refunded, in which shift; a cashierId that is none of the
merchant's till staff (removed ones included) or dashboard users answers 422 cashier_unknown before the PIN is checked. All refunds of a sale
together never exceed what was paid (409 refund_exceeds_sale, nothing_to_refund); a line refunds at most its units not yet refunded (400
refund_line_invalid); a sale without lines refunds in full only. 422 insufficient_funds when the merchant's wallet cannot pay it back. A
terminal refunds its own sales with its manager PIN (403 manager_pin_required, manager_pin_not_set, wrong_manager_pin; 429
manager_pin_locked after five wrong PINs); the merchant key needs no PIN. saleId may be the short id a receipt prints (409 sale_id_ambiguous
when two sales start with it).`;

/** docs/catalogue.md: sales, refunds, manager PINs, X and Z reports. HTTP only. */
export async function saleRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const refunds = refundsService(context);
  const reports = reportsService(context);

  app.post('/api/pos/refunds', {
    config: { ...merchantOrTerminal, idempotency: 'optional', idempotencyBodyCredential: pinAsCredential },
    schema: { tags: ['pos'], summary: 'Refund a sale in full or by lines', description: REFUND_RULES, body: RefundBody, response: { 201: RefundRecord, ...errors } },
  }, async (request, reply) => {
    const refund = await refunds.refund(actorOf(request), request.body, derivedUuid(request, 'pos_refund'));
    return reply.status(201).send(refund);
  });

  app.post('/api/pos/sessions/:sessionId/return', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'Give back a split tender: a POS session that paid part of a till sale the cashier cancelled',
      description:
        'For a session opened with tenderOf (part of a till sale), or an accepted offline tap the kiosk took with tenderOf (split tender offline; ' +
        'its id in place of the session\'s): refunds it in full to the wallet that paid, without a manager PIN, as it ' +
        'paid for nothing yet. Refused once a till sale claims it (409 sale_in_till_sale: refund that sale), for any other session and for one ' +
        `whose tenderOf names a till sale another till recorded (409 not_a_tender), more than ${TENDER_RETURN_HOURS} hours after it was paid (409 tender_return_expired), when it is not completed (409 ` +
        'sale_not_refundable) or was refunded already (409 nothing_to_refund). 404 sale_not_found for a session of another terminal. Asking again ' +
        'answers the same refund (its id derives from the session), so a retry never pays twice. 422 cashier_unknown for a cashierId that is none ' +
        'of the merchant\'s till staff or dashboard users.',
      params: Type.Object({ sessionId: Type.String({ maxLength: ID_LENGTH_MAX }) }),
      body: Type.Optional(TenderReturnBody),
      response: { 201: RefundRecord, ...errors },
    },
  }, async (request, reply) => {
    const refund = await refunds.returnTender(actorOf(request), request.params.sessionId, request.body ?? {});
    return reply.status(201).send(refund);
  });

  app.get('/api/pos/sales/:saleId', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'A sale (POS session or offline payment) with its lines, its refunds and what is still refundable',
      description: `saleId: the whole id, or the short one a receipt prints (its first 8 or more hex digits, any case), among the merchant's
sales (a terminal's own sales with a terminal token); answers 409 \`sale_id_ambiguous\` when two sales start with it, 404 \`sale_not_found\`
when none does. POST /api/pos/refunds takes either form too.`,
      params: SaleParams,
      response: { 200: SaleRecord, ...errors },
    },
  }, async (request) => refunds.sale(actorOf(request), request.params.saleId));

  app.put('/api/merchant/terminals/:id/manager-pin', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['merchant'],
      summary: 'Set the terminal\'s manager PIN (refunds and Z reports at the kiosk): 4 to 8 digits, stored with scrypt; clears its lock-out',
      params: TerminalParams,
      body: ManagerPinBody,
      response: { 200: ManagerPinResponse, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const terminalId = request.params.id;
    const set = await setManagerPin(context.db, principal, terminalId, request.body.pin);
    if (!set) throw notFound('terminal_not_found', `No terminal ${terminalId}`);
    return { terminalId, managerPinSet: true };
  });

  app.post('/api/pos/manager-pin/check', {
    config: { auth: ['terminal'] },
    schema: {
      tags: ['pos'],
      summary: 'Whether the terminal has a manager PIN, and checks one (the kiosk asks it before signing out)',
      description: `Without managerPin: 200 with managerPinSet and verified false, and no attempt counted. With it: 200 verified true for the
right PIN; else as a refund: 403 manager_pin_not_set, 403 wrong_manager_pin, 429 manager_pin_locked after five wrong PINs (15 minutes,
Retry-After), the same count of wrong PINs as refunds and Z reports.`,
      body: ManagerPinCheckBody,
      response: { 200: ManagerPinCheck, ...errors },
    },
  }, async (request) => {
    const { terminalId } = terminalOf(request);
    if (request.body.managerPin === undefined) {
      return { terminalId, managerPinSet: (await managerPinIsSet(context.db, terminalId)) === true, verified: false };
    }
    await checkManagerPin(context.db, terminalId, request.body.managerPin, context.now());
    return { terminalId, managerPinSet: true, verified: true };
  });

  app.get('/api/pos/reports/current', {
    config: { auth: ['terminal'] },
    schema: { tags: ['pos'], summary: 'The X report: running totals of the terminal\'s open day (nothing is stored)', response: { 200: DayReport, ...errors } },
  }, async (request) => reports.current(terminalOf(request)));

  app.post('/api/pos/reports', {
    config: { auth: ['terminal'], idempotency: 'optional', idempotencyBodyCredential: pinAsCredential },
    schema: {
      tags: ['pos'],
      summary: 'The Z report: closes the terminal\'s day with the manager PIN; numbered per terminal, never changed afterwards',
      body: CloseDayBody,
      response: { 201: DayReport, ...errors },
    },
  }, async (request, reply) => {
    const report = await reports.close(terminalOf(request), request.body.managerPin, derivedUuid(request, 'z_report'));
    return reply.status(201).send(report);
  });

  app.get('/api/pos/reports/:reportId', {
    config: { auth: ['terminal'] },
    schema: { tags: ['pos'], summary: 'One of the terminal\'s Z reports', params: ReportParams, response: { 200: DayReport, ...errors } },
  }, async (request) => {
    const actor = terminalOf(request);
    return reports.get(actor, actor.terminalId, request.params.reportId);
  });

  app.get('/api/merchant/terminals/:id/reports', {
    config: { auth: ['merchant'] },
    schema: { tags: ['merchant'], summary: 'A terminal\'s Z reports, newest first', params: TerminalParams, querystring: ListQuery, response: { 200: ListOf(DayReport), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    return reports.list(principal, request.params.id, query.limit ?? 20, query.offset ?? 0);
  });

  app.get('/api/merchant/terminals/:id/reports/:reportId', {
    config: { auth: ['merchant'] },
    schema: { tags: ['merchant'], summary: 'One Z report of a terminal', params: TerminalReportParams, response: { 200: DayReport, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const params = request.params;
    return reports.get(principal, params.id, params.reportId);
  });
}
