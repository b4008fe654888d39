import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CreatePosCollectionBody, ErrorBody, PosCollectionRecord, ReturnPosCollectionBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../auth/hooks.ts';
import { forbidden } from '../../http/errors.ts';
import { derivedId } from '../../http/idempotency.ts';
import type { TypedApp } from '../../http/typed-app.ts';
import { polledJob } from '../../jobs/poller.ts';
import { type CollectionCaller, SANDBOX_PHONE_SUFFIXES, collectionRecord } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 429: ErrorBody };
/** Like the other /api/pos routes: a terminal's token (the till) or the merchant's key. */
const merchantOrTerminal = { auth: ['merchant', 'terminal'] } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });

function caller(request: FastifyRequest): CollectionCaller {
  const principal = principalOf(request);
  if (principal.kind === 'merchant') return { merchantId: principal.merchantId, mode: principal.mode, terminalId: null };
  if (principal.kind === 'terminal') return { merchantId: principal.merchantId, mode: principal.mode, terminalId: principal.terminalId };
  throw forbidden('credential_not_allowed', 'Collections need a terminal token or the merchant API key');
}

const FLOW = `Mobile money at the till (docs/till.md): the till asks the customer's phone to pay; the customer approves or
declines there. States: pending -> completed | failed | expired, or cancelled by the till. expiresAt is
COLLECTION_TIMEOUT_SECONDS (default 120) after creation; a collection not confirmed by then becomes expired after one last
status query at the provider (failureCode no_answer; failureReason says when the provider could not be asked, as for an M-Pesa
push whose answer a crash lost: the customer may have paid, and the provider's callback still completes it). The provider is
never asked twice to prompt the phone, not even after a crash. Poll GET every second or two while the till waits.
Test mode (mk_test_ keys, test terminals): the sandbox answers after SANDBOX_STEP_MS: approved, except the magic numbers
(last four digits of the national number) ${SANDBOX_PHONE_SUFFIXES.declined} customer declined (failed, failureCode declined),
${SANDBOX_PHONE_SUFFIXES.insufficient_funds} insufficient funds (failed, insufficient_funds), ${SANDBOX_PHONE_SUFFIXES.no_answer}
no answer (expired at expiresAt). Live mode: routed to the provider for the merchant's country (M-Pesa Express in KE, MTN
MoMo request-to-pay where MTN operates, Paystack's mobile money charge in GH and KE, then any configured adapter that
collects there; RAIL_ROUTES mobile_money order); none: 422 collection_unavailable. Where Paystack asks for an OTP or other
input (send_otp: Ghana's Telecel/Vodafone Cash voucher), which a collection cannot carry, the collection fails at once
(failureCode provider_error, failureReason says so). Results arrive by the provider's callback (/api/rails/<provider>/...) and by polling its status.
On completion, in one database transaction: the state, one ledger transfer crediting the merchant's wallet (from
the provider's rail_clearing:<provider> live, from funding in the sandbox) and the event pos.collection.completed; failures and expiries send
pos.collection.failed and pos.collection.expired. Each event goes to the merchant's webhooks like every event, with
{collectionId, merchantId, terminalId, status, amount (major), amountMinor, currency, phone (masked), provider,
providerReference, transferId, failureCode, failureReason, cancelledAt, endedAt}. A completed collection is the
mobile_money tender of one till sale (reference = its id, same terminal, currency and amount), claimed once; one that no
sale claims can be given back to the phone instead (POST /api/pos/collections/{id}/return: returnedAt, returnPaymentId,
pos.collection.returned), after which it pays no sale.`;

/** Mobile-money collections at the till: POST /api/pos/collections, GET, cancel. */
export async function collectionRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const collections = context.collections;

  app.post('/api/pos/collections', {
    config: { ...merchantOrTerminal, idempotency: 'optional' },
    schema: {
      tags: ['pos'],
      summary: 'Ask the customer\'s phone to pay (M-Pesa STK push, MoMo request-to-pay, Paystack mobile money charge; the sandbox in test mode)',
      description: `${FLOW}\n\nIdempotency-Key honoured: the collection id derives from the key, so a retry (even after a crash) answers
the same collection and never prompts the phone twice. 400 invalid_phone (not a valid number in E.164 or the merchant country's local
form), 400 currency_not_accepted (not the merchant's currency), 400 invalid_amount, 404 wallet_not_found, 422 collection_unavailable
(live mode, no provider collects in the merchant's country).`,
      body: CreatePosCollectionBody,
      response: { 201: PosCollectionRecord, ...errors },
    },
  }, async (request, reply) => {
    const row = await collections.create(caller(request), request.body, derivedId(request, 'pos_collection', 'col'));
    return reply.status(201).send(collectionRecord(row));
  });

  app.get('/api/pos/collections/:id', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'A collection: poll it while the till waits (404 collection_not_found for another merchant\'s or mode\'s, or, with a terminal token, another till\'s)',
      description: FLOW,
      params: IdParams,
      response: { 200: PosCollectionRecord, ...errors },
    },
  }, async (request) => collectionRecord(await collections.get(caller(request), request.params.id)));

  app.post('/api/pos/collections/:id/cancel', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'The till stops waiting: a pending collection becomes cancelled (409 collection_not_pending once it has ended, 410 collection_expired)',
      description: `The provider cannot always withdraw a prompt already on the customer's phone. The collection is still asked about
until its expiry: if the provider confirms the payment after the cancel, it is recorded as completed (cancelledAt stays set,
claimedBy null), credited to the merchant and announced by pos.collection.completed, so that the merchant can see it and give it
back to the customer's phone (POST /api/pos/collections/{id}/return): never lost, never silently kept. A cancelled collection cannot be a till sale's tender. Cancelling a cancelled collection
answers it again. 404 collection_not_found.`,
      params: IdParams,
      response: { 200: PosCollectionRecord, ...errors },
    },
  }, async (request) => collectionRecord(await collections.cancel(caller(request), request.params.id)));

  app.post('/api/pos/collections/:id/return', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'Give a completed collection that pays no sale back to the phone that paid (a split sale cancelled at the till, or a payment confirmed after the till cancelled)',
      description: `The cashier cancelled a split sale after its mobile money part was paid, or the provider confirmed a payment after the till
cancelled the collection (completed, cancelledAt set, claimedBy null): the collection's whole amount goes back to the phone that paid
as a mobile_money payout from the merchant's wallet (a payment like POST /api/pay's: the sandbox in test mode, the live payout rails
in live mode), its id in returnPaymentId (GET /api/payments/{id} follows it). The merchant pays the payout's fee on top, as for a refund:
the merchant's wallet is debited amount + fee, the phone receives the whole amount. In one database transaction under the collection's
lock: the payout with its ledger debit, returnedAt and returnPaymentId, and the event pos.collection.returned (the collection's fields,
returnPaymentId, returnedAt, returnFee, cashierId, shiftId). Once only: the payout's id derives from the collection's, so a retry, a
second call or two at once answer the same record (200) and never pay twice. A returned collection can no longer be a till sale's
tender (tender_unverified). A terminal gives back its own collections; the merchant key any of its own in the key's mode.
The payout then follows the payments' rules: one its provider fails (or reverses after success) gives its debit back to the
merchant's wallet (payment.failed or payment.reversed) and, in the same transaction, makes the collection returnable again:
returnedAt and returnPaymentId go back to null, returnAttempts keeps the count, and the event pos.collection.return_failed
(the collection's fields, failedPaymentId, paymentStatus, paymentFailureReason) is sent; calling this route again sends a new
payout (its id derives from the collection's and the attempt's). reference: the payout's reference, as POST /api/pay's (in
test mode test_failure and test_reversal make the sandbox fail or reverse it).
409 collection_return_changed (transient: a payout sent by another call failed between this call's read and its lock; send again).
404 collection_not_found (another merchant's, mode's or terminal's). 409 collection_not_completed (pending, failed, expired, or
cancelled without a payment). 409 collection_claimed (a till sale takes it as its tender: refund that sale, its refund pays the phone back).
422 insufficient_funds (the merchant's wallet holds less than amount + fee; nothing moved: top it up and send again).
422 cashier_unknown (a cashierId that is none of the merchant's till staff or dashboard users).
422 rail_unavailable or amount_not_payable (live mode: no payout provider pays mobile money to the phone's country, or the provider
cannot pay this amount, as M-Pesa pays whole shillings only).`,
      params: IdParams,
      body: Type.Optional(ReturnPosCollectionBody),
      response: { 200: PosCollectionRecord, ...errors },
    },
  }, async (request) => collectionRecord(await collections.returnToPhone(caller(request), request.params.id, request.body ?? {})));
}

const JOB_INTERVAL_MIN_MS = 100;

/** The durable job: due sandbox steps, provider polls and expiries (tests call context.collections.runOnce()). */
export function startCollectionJobs(app: TypedApp, context: AppContext): void {
  // At most every second (sandbox steps and expiries are due to the second), and at least every
  // 100 ms: COLLECTION_POLL_MS=1 (the smallest that keeps the timer) used to run the claim query in
  // a loop 1 ms apart; a provider is asked at most once a second anyway (service.ts, pollMs).
  const poll = context.config.collectionPollMs;
  const interval = poll > 0 ? Math.min(Math.max(poll, JOB_INTERVAL_MIN_MS), 1000) : 0;
  const job = polledJob(() => context.collections.runOnce(), interval, (error) => app.log.error({ err: error }, 'collection job failed'));
  context.collectionJobs = job;
  app.addHook('onReady', async () => job.start());
  app.addHook('onClose', async () => job.stop());
}
