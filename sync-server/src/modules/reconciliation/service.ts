// The daily reconciliation of live payouts and collections with each payment provider: for one
// provider and one UTC day, our payouts and collections through it made that day against the
// provider's own record of them.
//
// It reports; it never corrects. A mismatch is for an operator, who asks the provider and
// decides. Correcting automatically would be unsafe: the two sides disagree because one of them
// is wrong or late, and the report cannot tell which. A payout we show failed that the provider
// shows paid may be a payout the provider will still reverse, or a second payment under our key;
// one we show completed that the provider does not list may be a listing that lags, or a transfer
// made under another reference by hand; amounts may differ by a fee the provider took. Refunding
// the merchant, re-sending a payout or reversing a settlement on such evidence would pay twice or
// take back money that was really paid. The provider's callbacks and the scheduler's polls already
// apply every outcome the provider states about a payout (idempotently, through the payments
// module); what is left here is what they could not settle, and that is a human's call.
//
// Asking: a provider whose adapter lists a day's transactions (transactionsOn: Paystack,
// Flutterwave) is asked for that list, then by key about any payout of ours it should know but
// did not list (a listing's day boundary may differ from ours); the others (M-Pesa, MTN MoMo) are
// asked about each of our payouts of the day by key (lookup, else poll). Any question that fails
// fails the whole day (status failed, with the error): a half answer is not a reconciliation.
// Collections (a customer paying from her phone: till sales, wallet and agent float top-ups): a
// provider whose adapter lists the day's money coming in (incomingOn: Paystack GET /transaction,
// Flutterwave GET /v3/transactions) is read whole, so a charge it took under a key of ours that we
// never stored is found; then each of our collections the list did not show is asked about by its
// key (collectionRecord: verify by reference), as a listing's day boundary may differ from ours.
// The others (M-Pesa's Express query, MoMo's request-to-pay GET) are asked about each of our
// collections by its key, whatever its state with us.
// Live bills (airtime, electricity, cable TV paid from a wallet through a provider's BillerProvider:
// Flutterwave GET /v3/bills/{reference}) are asked about by key, each of ours of the day whatever
// its state, four at a time: Flutterwave's documented bill history (the SDK's GET /v3/bills?from&to)
// answers per-currency sums only, no bill under a key, so it cannot name a bill. A bill the
// provider paid under a key of ours that we never stored is therefore not found.
//
// It moves money in two cases only. First, a bank transfer into a wallet's virtual account that
// the provider's list of the day shows successful and that no webhook brought (no bank-transfer
// row under its reference) is credited here, once, through the same path as the webhook
// (bankTransfers.credit, keyed on provider and reference). This is not a correction of a
// disagreement: the list is the provider's authenticated answer, each transfer is read back with
// the same verify the webhook waits for, a bank transfer that arrived can never be refused, and the
// credit is keyed on the provider's reference, so a webhook arriving later, a requery or a re-run
// of the day finds it and changes nothing. It does what the lost webhook would have done.
//
// Second, settlements: a completed collection leaves what the customer paid on the provider's
// clearing account (negative: the money is at the provider). recordSettlement is an operator's
// record that the provider paid it to Tapline's bank: a balanced transfer from the platform's bank
// account to the provider's clearing, stated by a person who saw it arrive, once per provider
// reference.
import type { Database } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { railClearing, systemAccount } from '../../ledger/accounts.ts';
import { transfer } from '../../ledger/ledger.ts';
import { transferIds } from '../../ledger/transfers.ts';
import { type CollectionRow, findProviderCollections, isCollectionId, listProviderCollectionsCreated } from '../collections/index.ts';
import { type PolledJob, forEachLimited, polledJob } from '../../jobs/poller.ts';
import { providerClearingCurrencies, railClearingBalances, railClearingNetOf } from '../../ledger/ledger.ts';
import { type PaymentRow, type PayoutRequest, type PayoutUpdate, findProviderPayouts, listProviderPayoutsCreated, payoutRequestOf } from '../payments/index.ts';
import { type BillRow, listProviderBillsCreated } from '../bills/index.ts';
import { type DayComparison, type Mismatch, type OurPayout, type ProviderTransaction, type TheirPayout, compareDay } from './compare.ts';
import {
  type ReconciliationMethod,
  type ReconciliationRow,
  type SettlementRow,
  findReconciliation,
  findSettlement,
  insertSettlement,
  listSettlements,
  listMismatches,
  listReconciliations,
  reconciliationsOfDay,
  saveReconciliation,
} from './store.ts';

/** What the reconciliation needs of a provider's adapter (rails/<provider>; RailAdapter has it all). */
export interface ReconciliationSource {
  readonly name: string;
  /** The provider's record of a UTC day's transactions; `ours` are our payouts of the day, for adapters that ask by reference. */
  transactionsOn?(day: string, ours: readonly ProviderTransaction[]): Promise<ProviderTransaction[]>;
  /** What became of a payout at the provider; undefined when it never heard of its key. Throws when it cannot tell now. */
  lookup?(request: PayoutRequest): Promise<PayoutUpdate | undefined>;
  poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate>;
  /**
   * The provider's record of one of our collections by its key (RailAdapter's collectionRecord):
   * undefined when it never heard of it; `paid` where its record carries the amount. Throws when it
   * cannot tell now. A provider without it cannot reconcile collections (the day fails if it has any).
   */
  collectionRecord?(request: CollectionQuestion, providerReference: string | null): Promise<CollectionAnswer | undefined>;
  /**
   * The provider's list of the day's money coming in, every page (RailAdapter's incomingOn):
   * charges under a collection key of ours, and successful bank transfers into virtual accounts.
   * Throws when it cannot be read now.
   */
  incomingOn?(day: string): Promise<ListedIncoming>;
  /** The provider's verified record of a bank transfer into a virtual account (RailAdapter's bankTransferRecord); undefined: none. Throws when it cannot tell now. */
  bankTransferRecord?(reference: string): Promise<ConfirmedBankTransfer | undefined>;
}

/** A UTC day's money coming in as the provider lists it (rails' IncomingDay). */
export interface ListedIncoming {
  /** Charges under a collection key of ours (the collection may be unknown to us), as its status query reads them. */
  collections: (CollectionAnswer & { collectionId: string })[];
  /** Successful bank transfers into virtual accounts (not collections): the references they are credited under. */
  bankTransfers: string[];
}

/** A bank transfer into a wallet's virtual account as the provider's verified record has it (rails' ArrivedBankTransfer); minor units. */
export interface ConfirmedBankTransfer {
  providerReference: string;
  accountNumber?: string | undefined;
  accountReference?: string | undefined;
  amount: number;
  currency: string;
  paidAt?: string | undefined;
  senderName?: string | undefined;
  senderBank?: string | undefined;
  narration?: string | undefined;
}

/** What the reconciliation needs of wallet money to credit a bank transfer whose webhook was lost (modules/wallet-money). */
export interface BankTransferCredits {
  /** The references of this provider that have a bank-transfer row already. */
  known(provider: string, references: readonly string[]): Promise<Set<string>>;
  /** The webhook's own path: credits it once under (provider, reference); 'unknown_account' when no wallet's account took it. */
  credit(provider: string, transfer: ConfirmedBankTransfer): Promise<'applied' | 'unchanged' | 'unknown_account'>;
}

/**
 * What the reconciliation needs of a live bill payer (modules/bills' BillerProvider has it): its
 * name (the provider its bills are recorded under) and its record of a bill by key.
 */
export interface BillSource {
  readonly name: string;
  /** The provider's record of one of our bills by its key; undefined when it holds none. Throws when it cannot tell now. Absent: bills through it cannot be reconciled (the day fails if it has any). */
  billRecord?(question: BillQuestion): Promise<BillAnswer | undefined>;
}

/** What a provider is asked about a bill (modules/bills' BillQuestion): amount in minor units, what the biller is paid. */
export interface BillQuestion {
  billId: string;
  amount: number;
  currency: string;
}

/** The provider's record of a bill (modules/bills' BillRecord); `paid` in minor units. */
export interface BillAnswer {
  status: 'pending' | 'completed' | 'failed';
  providerReference?: string | undefined;
  paid?: { amount: number; currency: string } | undefined;
}

/** What a provider is asked about a collection (rails' CollectionRequest): amount is what the phone was asked for, amount + fee. */
export interface CollectionQuestion {
  collectionId: string;
  amount: number;
  currency: string;
  phone: string;
  description: string;
}

/** The provider's record of a collection (rails' CollectionUpdate). */
export interface CollectionAnswer {
  status: 'pending' | 'completed' | 'failed';
  providerReference?: string | undefined;
  paid?: { amount: number; currency: string | undefined } | undefined;
}

/** An operator's record that a provider paid Tapline (POST /api/admin/rails/settlements); amount in minor units. */
export interface SettlementInput {
  provider: string;
  amount: number;
  currency: string;
  reference: string;
  settledOn: string;
}

export interface ReconciliationOptions {
  db: Database;
  now: () => Date;
  /** The configured providers. */
  sources: readonly ReconciliationSource[];
  /** The live bill payers (context.billerProviders): reconciled under their names, with the source of that name if any. */
  billers?: readonly BillSource[];
  /** RECONCILE_AFTER_HOURS: the daily job reconciles a day this long after it ends. */
  afterHours: number;
  /** How often the daily job looks for a day to reconcile (real time); 0: runOnce only. */
  intervalMs?: number;
  /** Warnings for an operator: a day mismatched or failed, a run that could not be recorded. */
  log: (message: string, detail: Record<string, unknown>) => void;
  /** Crediting bank transfers the provider's list shows and no webhook brought; absent: they are not looked for. */
  bankTransfers?: BankTransferCredits;
}

export interface ReconciliationRecord extends ReconciliationRow {
  mismatches: Mismatch[];
}

export interface JobRun {
  provider: string;
  day: string;
  status: ReconciliationRow['status'];
}

const DAY_MS = 24 * 3_600_000;
/** How often the daily job looks (the work is one indexed query when the day is done). */
export const RECONCILE_JOB_INTERVAL_MS = 10 * 60_000;
/** A day whose reconciliation failed (the provider could not be asked) is tried again this long after. */
export const RECONCILE_RETRY_FAILED_MS = 3_600_000;
/** Payouts asked about at once, by key. */
const ASK_CONCURRENCY = 4;
const ERROR_TEXT_MAX = 1000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a UTC day given as YYYY-MM-DD; undefined for anything that is not a calendar day. */
export function dayStart(day: string): Date | undefined {
  if (!DAY_PATTERN.test(day)) return undefined;
  const start = new Date(`${day}T00:00:00.000Z`);
  return !Number.isNaN(start.getTime()) && start.toISOString().slice(0, 10) === day ? start : undefined;
}

/** The last UTC day that ended at least `afterHours` before `now`: what the daily job reconciles. */
export function dayToReconcile(now: Date, afterHours: number): string {
  const shifted = new Date(now.getTime() - afterHours * 3_600_000);
  const today = Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate());
  return new Date(today - DAY_MS).toISOString().slice(0, 10);
}

function ourPayout(row: PaymentRow): OurPayout {
  return { paymentId: row.id, status: row.status, amount: row.destination_amount, currency: row.destination_currency, providerReference: row.provider_reference };
}

/** What the phone was asked for (amount + fee) is what the provider collects and the clearing gave. */
function ourCollection(row: CollectionRow): OurPayout {
  return { paymentId: row.id, direction: 'collection', status: row.status, amount: row.amount + row.fee, currency: row.currency, providerReference: row.provider_reference };
}

/** A bill's amount is what the provider pays the biller; its fee is Tapline's and stays in the wallet's debit. */
function ourBill(row: BillRow): OurPayout {
  return { paymentId: row.id, direction: 'bill', status: row.status, amount: row.amount, currency: row.currency, providerReference: row.provider_reference };
}

function collectionQuestion(row: CollectionRow): CollectionQuestion {
  return { collectionId: row.id, amount: row.amount + row.fee, currency: row.currency, phone: row.phone, description: row.description ?? 'Tapline' };
}

/** A provider's answer about a collection (by key or in its list) as the comparison reads it: an amount only where it says completed. */
function theirCollection(collectionId: string, answer: CollectionAnswer, row: CollectionRow | undefined): TheirPayout {
  const paid = answer.status === 'completed' ? answer.paid : undefined;
  return {
    paymentId: collectionId,
    direction: 'collection',
    providerReference: answer.providerReference ?? row?.provider_reference ?? null,
    status: answer.status,
    amount: paid ? paid.amount : null,
    currency: paid ? (paid.currency ?? row?.currency ?? null) : null,
  };
}

function theirStatus(update: PayoutUpdate): TheirPayout['status'] {
  return update.status === 'processing' ? 'pending' : update.status;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_MAX);
}

export function reconciliationService(options: ReconciliationOptions) {
  const { db } = options;
  const sources = new Map(options.sources.map((source) => [source.name, source]));
  const billers = new Map((options.billers ?? []).map((biller) => [biller.name, biller]));
  /** Every provider reconciled: the configured adapters, and live bill payers of another name. */
  const providerNames = () => [...new Set([...sources.keys(), ...billers.keys()])];

  /** Asks the provider about each payout by its key, a few at a time; the first failure stops it and throws. */
  async function askByKey(source: ReconciliationSource, rows: readonly PaymentRow[]): Promise<TheirPayout[]> {
    const answers: TheirPayout[] = [];
    let failure: Error | undefined;
    await forEachLimited(rows, ASK_CONCURRENCY, async (row) => {
      if (failure) return;
      const request = payoutRequestOf(row);
      try {
        const update = source.lookup ? await source.lookup(request) : await source.poll(request, row.provider_reference);
        if (update) answers.push({ paymentId: row.id, providerReference: update.providerReference ?? row.provider_reference, status: theirStatus(update), amount: null, currency: null });
      } catch (error) {
        failure ??= new Error(`${source.name} could not tell what became of payment ${row.id}: ${messageOf(error)}`);
      }
    });
    if (failure) throw failure;
    return answers;
  }

  /** Asks the provider about each collection by its key; the first failure stops it and throws. */
  async function askCollectionsByKey(source: ReconciliationSource, rows: readonly CollectionRow[]): Promise<TheirPayout[]> {
    if (rows.length === 0) return [];
    const record = source.collectionRecord;
    if (!record) throw new Error(`${source.name} cannot be asked about collections, and ${rows.length} were made through it that day`);
    const answers: TheirPayout[] = [];
    let failure: Error | undefined;
    await forEachLimited(rows, ASK_CONCURRENCY, async (row) => {
      if (failure) return;
      try {
        // The request's own id where it was kept (M-Pesa's CheckoutRequestID once the reference became the receipt).
        const answer = await record.call(source, collectionQuestion(row), row.provider_request_id ?? row.provider_reference);
        if (answer) answers.push(theirCollection(row.id, answer, row));
      } catch (error) {
        failure ??= new Error(`${source.name} could not tell what became of collection ${row.id}: ${messageOf(error)}`);
      }
    });
    if (failure) throw failure;
    return answers;
  }

  /** Asks the provider about each of our bills of the day by its key, whatever its state with us; the first failure stops it and throws. */
  async function askBillsByKey(provider: string, rows: readonly BillRow[]): Promise<TheirPayout[]> {
    if (rows.length === 0) return [];
    const biller = billers.get(provider);
    const record = biller?.billRecord;
    if (!biller || !record) throw new Error(`${provider} cannot be asked about bill payments, and ${rows.length} were paid through it that day`);
    const answers: TheirPayout[] = [];
    let failure: Error | undefined;
    await forEachLimited(rows, ASK_CONCURRENCY, async (row) => {
      if (failure) return;
      try {
        const answer = await record.call(biller, { billId: row.id, amount: row.amount, currency: row.currency });
        if (!answer) return;
        const paid = answer.status === 'completed' ? answer.paid : undefined;
        answers.push({
          paymentId: row.id,
          direction: 'bill',
          providerReference: answer.providerReference ?? row.provider_reference,
          status: answer.status,
          amount: paid ? paid.amount : null,
          currency: paid ? paid.currency : null,
        });
      } catch (error) {
        failure ??= new Error(`${provider} could not tell what became of bill ${row.id}: ${messageOf(error)}`);
      }
    });
    if (failure) throw failure;
    return answers;
  }

  /**
   * The provider's side of the day's collections: its list of the day where it has one (every
   * charge under a key of ours, known to us or not; a bank transfer into a virtual account is not
   * a collection), then by key each of ours the list did not show (a listing's day boundary may
   * differ from ours); without a list, each of ours by key. Throws when it cannot be asked.
   */
  async function askCollections(source: ReconciliationSource, listed: ListedIncoming | undefined, rows: readonly CollectionRow[]): Promise<TheirPayout[]> {
    if (!listed) return askCollectionsByKey(source, rows);
    const ourRows = new Map(rows.map((row) => [row.id, row]));
    // Only a key that decodes to a collection id of ours counts: another system's charge is not ours to judge.
    const theirs = listed.collections.filter((answer) => isCollectionId(answer.collectionId)).map((answer) => theirCollection(answer.collectionId, answer, ourRows.get(answer.collectionId)));
    const listedIds = new Set(theirs.map((answer) => answer.paymentId));
    return [...theirs, ...(await askCollectionsByKey(source, rows.filter((row) => !listedIds.has(row.id))))];
  }

  /**
   * Bank transfers into virtual accounts that the provider's list of the day shows successful and
   * no webhook brought (no row under their reference): each read back with the provider's verify
   * (bankTransferRecord, what the webhook path asks) and credited once through the webhook's own
   * path. The count of those credited now goes to `recovered` as they happen, so a failure half way
   * still counts what was done; a failure throws (the day fails, and is tried again).
   */
  async function recoverBankTransfers(source: ReconciliationSource, listed: ListedIncoming, day: string, recovered: { count: number }): Promise<void> {
    const credits = options.bankTransfers;
    if (!credits || !source.bankTransferRecord || listed.bankTransfers.length === 0) return;
    const known = await credits.known(source.name, listed.bankTransfers);
    for (const reference of listed.bankTransfers) {
      if (known.has(reference)) continue;
      let arrived: ConfirmedBankTransfer | undefined;
      try {
        arrived = await source.bankTransferRecord(reference);
      } catch (error) {
        throw new Error(`${source.name} could not confirm bank transfer ${reference.slice(0, 60)} its list shows: ${messageOf(error)}`);
      }
      if (!arrived || arrived.amount <= 0) {
        // Listed but not confirmed as a transfer of money (or of nothing, as the webhook path treats it): nothing to credit.
        options.log('rail reconciliation: a listed bank transfer was not confirmed as money in; nothing credited', { provider: source.name, day, reference: reference.slice(0, 60), amount: arrived?.amount });
        continue;
      }
      const outcome = await credits.credit(source.name, arrived);
      if (outcome === 'applied') {
        recovered.count += 1;
        options.log('rail reconciliation credited a bank transfer whose webhook never arrived', { provider: source.name, day, reference: reference.slice(0, 60), amount: arrived.amount, currency: arrived.currency });
      } else if (outcome === 'unknown_account') {
        options.log('rail reconciliation: a listed bank transfer into an account that is no wallet\'s here', { provider: source.name, day, reference: reference.slice(0, 60) });
      }
    }
  }

  /** The provider's side of the day; throws when it cannot be asked. */
  async function askProvider(source: ReconciliationSource, day: string, rows: readonly PaymentRow[]): Promise<TheirPayout[]> {
    if (!source.transactionsOn) return askByKey(source, rows);
    const ours: ProviderTransaction[] = rows.map((row) => ({
      id: row.id,
      providerReference: row.provider_reference,
      direction: 'payout',
      status: row.status === 'processing' ? 'pending' : row.status,
      amount: row.destination_amount,
      currency: row.destination_currency,
    }));
    const listed = (await source.transactionsOn(day, ours)).filter((transaction) => transaction.direction === 'payout');
    const theirs: TheirPayout[] = listed.map((transaction) => ({
      paymentId: transaction.id,
      providerReference: transaction.providerReference,
      status: transaction.status,
      amount: transaction.amount,
      currency: transaction.currency,
    }));
    // A payout the provider must know (it accepted it) but did not list is asked about by key
    // before it is called ours only: the provider may file it under the next day.
    const listedIds = new Set(listed.map((transaction) => transaction.id));
    const unlisted = rows.filter((row) => !listedIds.has(row.id) && (row.status === 'processing' || row.status === 'completed' || row.status === 'reversed'));
    return [...theirs, ...(await askByKey(source, unlisted))];
  }

  /**
   * Reconciles one provider's day now and records it (replacing an earlier record of that day):
   * its payouts, collections and live bills of the day. Throws 404 rail_provider_not_configured
   * (neither a payment adapter nor a live bill payer of that name), 400 validation_failed for a day
   * that is not a date, 409 reconciliation_day_not_over before the day has ended; a provider that
   * cannot be asked is a record with status failed, not an error. Database faults are thrown.
   */
  async function reconcile(provider: string, day: string): Promise<ReconciliationRecord> {
    const source = sources.get(provider);
    if (!source && !billers.has(provider)) throw notFound('rail_provider_not_configured', `No payment provider ${JSON.stringify(provider.slice(0, 40))} is configured on this server`);
    const from = dayStart(day);
    if (!from) throw badRequest('validation_failed', `Invalid body: day must be a calendar day as YYYY-MM-DD, got ${JSON.stringify(day.slice(0, 20))}`, [{ field: 'day', message: 'must be a calendar day (YYYY-MM-DD)' }]);
    const to = new Date(from.getTime() + DAY_MS);
    if (options.now().getTime() < to.getTime()) throw conflict('reconciliation_day_not_over', `${day} (UTC) has not ended yet: a day is reconciled once it is over`);

    const rows = await listProviderPayoutsCreated(db, provider, from, to);
    const ours = rows.map(ourPayout);
    const collectionRows = await listProviderCollectionsCreated(db, provider, from, to);
    const ourCollections = collectionRows.map(ourCollection);
    const billRows = await listProviderBillsCreated(db, provider, from, to);
    const ourBills = billRows.map(ourBill);
    const method: ReconciliationMethod = source?.transactionsOn ? 'list' : 'by_key';
    let comparison: DayComparison;
    let collections: DayComparison;
    let bills: DayComparison;
    let error: string | null = null;
    const recovered = { count: 0 };
    try {
      // A live bill payer that is no payment adapter (its name has no source) made no payouts or collections.
      if (!source && (rows.length > 0 || collectionRows.length > 0)) throw new Error(`${provider} is no payment adapter here, and payouts or collections were made through it that day`);
      const theirs = source ? await askProvider(source, day, rows) : [];
      const dayIds = new Set(rows.map((row) => row.id));
      const others = [...new Set(theirs.map((payout) => payout.paymentId).filter((id): id is string => id !== undefined && !dayIds.has(id)))];
      const elsewhere = (await findProviderPayouts(db, provider, others)).map(ourPayout);
      comparison = compareDay({ ours, theirs, elsewhere });
      const listed = source?.incomingOn ? await source.incomingOn(day) : undefined;
      // The list's bank transfers first: what a lost webhook left uncredited waits on no other question of the day.
      if (source && listed) await recoverBankTransfers(source, listed, day, recovered);
      const theirCollections = source ? await askCollections(source, listed, collectionRows) : [];
      // A collection of ours made on another day that the provider lists on this one: judged, outside our totals.
      const collectionDay = new Set(collectionRows.map((row) => row.id));
      const otherCollections = [...new Set(theirCollections.map((answer) => answer.paymentId).filter((id): id is string => id !== undefined && !collectionDay.has(id)))];
      const collectionsElsewhere = (await findProviderCollections(db, provider, otherCollections)).map(ourCollection);
      collections = compareDay({ ours: ourCollections, theirs: theirCollections, elsewhere: collectionsElsewhere });
      // Bills: each of ours asked about by its key (no list names a bill), so none is of another day.
      bills = compareDay({ ours: ourBills, theirs: await askBillsByKey(provider, billRows), elsewhere: [] });
    } catch (caught) {
      error = messageOf(caught);
      // Our side is still known: its totals and what it leaves in clearing.
      const ourSide = compareDay({ ours, theirs: [], elsewhere: [] });
      comparison = { matched: 0, mismatches: [], ourTotals: ourSide.ourTotals, providerTotals: {}, clearingNet: ourSide.clearingNet };
      collections = { ...compareDay({ ours: ourCollections, theirs: [], elsewhere: [] }), matched: 0, mismatches: [], providerTotals: {} };
      bills = { ...compareDay({ ours: ourBills, theirs: [], elsewhere: [] }), matched: 0, mismatches: [], providerTotals: {} };
    }
    const mismatches = [...comparison.mismatches, ...collections.mismatches, ...bills.mismatches];
    const status = error !== null ? 'failed' : mismatches.length > 0 ? 'mismatched' : 'clean';
    // The ledger's side, whatever the provider answered: the provider's own clearing accounts. A live
    // bill's debit, settlement and refund post on them too (modules/bills): its money is in flight there.
    const ledgerClearingNet = await railClearingNetOf(db, provider, 'live', [...rows.map((row) => row.id), ...billRows.map((row) => row.id)]);
    const clearingBalance = await railClearingBalances(db, provider, 'live');
    const row = await db.transaction((tx) =>
      saveReconciliation(
        tx,
        {
          id: newId('rcn'),
          provider,
          day,
          status,
          method,
          matched: comparison.matched + collections.matched + bills.matched,
          mismatched: mismatches.length,
          our_totals: comparison.ourTotals,
          provider_totals: comparison.providerTotals,
          clearing_net: comparison.clearingNet,
          collection_totals: collections.ourTotals,
          collection_provider_totals: collections.providerTotals,
          bill_totals: bills.ourTotals,
          bill_provider_totals: bills.providerTotals,
          ledger_clearing_net: ledgerClearingNet,
          clearing_balance: clearingBalance,
          bank_transfers_recovered: recovered.count,
          error,
          created_at: options.now(),
        },
        mismatches,
      ),
    );
    if (status !== 'clean') {
      options.log(status === 'failed' ? 'rail reconciliation failed: the provider could not be asked' : 'rail reconciliation found mismatches for an operator', {
        provider,
        day,
        reconciliationId: row.id,
        ...(error !== null ? { error } : { mismatched: mismatches.length }),
      });
    }
    return { ...row, mismatches };
  }

  /**
   * Records that a provider paid Tapline (its settlement of collected money): one balanced transfer
   * from the platform's bank account of the currency to the provider's clearing (rail_clearing:
   * <provider>), in the same transaction as its row. Once per provider and reference: a repeat
   * answers the first record (created false) and posts nothing, even when its other fields differ.
   * Throws 404 rail_provider_not_configured; 400 validation_failed (amount, reference, day);
   * 400 currency_not_cleared for a currency the provider's clearing never held for us.
   */
  async function recordSettlement(input: SettlementInput): Promise<{ settlement: SettlementRow; created: boolean }> {
    if (!sources.has(input.provider)) throw notFound('rail_provider_not_configured', `No payment provider ${JSON.stringify(input.provider.slice(0, 40))} is configured on this server`);
    const reference = input.reference.trim();
    if (reference.length === 0) throw badRequest('validation_failed', 'Invalid body: reference must be the provider\'s settlement reference', [{ field: 'reference', message: 'must not be empty' }]);
    if (!dayStart(input.settledOn)) {
      throw badRequest('validation_failed', `Invalid body: settledOn must be a calendar day as YYYY-MM-DD, got ${JSON.stringify(input.settledOn.slice(0, 20))}`, [{ field: 'settledOn', message: 'must be a calendar day (YYYY-MM-DD)' }]);
    }
    // An operator records money she saw arrive: a day that has not begun (UTC) is a typo, not a settlement.
    const today = options.now().toISOString().slice(0, 10);
    if (input.settledOn > today) throw badRequest('settled_on_in_future', `settledOn ${input.settledOn} is after today (${today}, UTC): record a settlement once the money has reached the bank`);
    const earlier = await findSettlement(db, input.provider, reference);
    if (earlier) return { settlement: sameSettlement(earlier, input), created: false };
    if (!Number.isSafeInteger(input.amount) || input.amount <= 0) {
      throw badRequest('validation_failed', 'Invalid body: amount must be positive, in major units with no more decimals than the currency has', [{ field: 'amount', message: 'must be positive' }]);
    }
    const currencies = await providerClearingCurrencies(db, input.provider);
    if (!currencies.includes(input.currency)) {
      throw badRequest(
        'currency_not_cleared',
        `${input.provider} has cleared no ${input.currency.slice(0, 8)} for Tapline${currencies.length > 0 ? ` (its clearing holds ${currencies.join(', ')})` : ''}: a settlement is recorded in a currency its collections or payouts moved`,
      );
    }
    const id = newId('rst');
    const transferId = transferIds.railSettlement(id);
    const now = options.now();
    const result = await db.transaction(async (tx) => {
      // The row first: a repeat that raced this one finds it (the unique provider, reference) and posts nothing.
      const inserted = await insertSettlement(tx, { id, provider: input.provider, amount: input.amount, currency: input.currency, reference, settled_on: input.settledOn, transfer_id: transferId, created_at: now });
      if (!inserted) return undefined;
      await transfer(tx, {
        id: transferId,
        mode: 'live',
        kind: 'rail_settlement',
        legs: [
          // The platform's bank receives the provider's payment; the provider's clearing is paid back.
          { account: systemAccount('bank', input.currency), amount: -input.amount },
          { account: railClearing(input.currency, input.provider), amount: input.amount },
        ],
        metadata: { settlementId: id, provider: input.provider, reference, settledOn: input.settledOn },
      });
      return inserted;
    });
    if (result) return { settlement: result, created: true };
    const first = await findSettlement(db, input.provider, reference);
    if (!first) throw new Error(`settlement ${input.provider} ${reference} vanished`);
    return { settlement: sameSettlement(first, input), created: false };
  }

  /**
   * A repeat of a reference answers the first record only when it says the same thing: a retry is
   * harmless, but another amount, currency or day under the same reference is a mistake one way or
   * the other, and answering the first record would hide it.
   */
  function sameSettlement(first: SettlementRow, input: SettlementInput): SettlementRow {
    const differs = [
      first.amount !== input.amount ? 'amount' : undefined,
      first.currency !== input.currency ? 'currency' : undefined,
      first.settled_on !== input.settledOn ? 'settledOn' : undefined,
    ].filter((field) => field !== undefined);
    if (differs.length > 0) {
      throw conflict('settlement_reference_conflict', `${first.provider}'s settlement ${first.reference} is recorded already (${first.id}) with another ${differs.join(', ')}: a reference is recorded once; check the provider's statement`);
    }
    return first;
  }

  async function settlements(filter: { provider?: string | undefined }, limit: number, offset: number) {
    return listSettlements(db, filter, limit, offset);
  }

  async function find(id: string): Promise<ReconciliationRecord | undefined> {
    const row = await findReconciliation(db, id);
    return row ? { ...row, mismatches: await listMismatches(db, row.id) } : undefined;
  }

  function list(filter: { provider?: string | undefined; day?: string | undefined }, limit: number, offset: number) {
    return listReconciliations(db, filter, limit, offset);
  }

  /**
   * The daily job's one pass: the last day over by RECONCILE_AFTER_HOURS, for every configured
   * provider (payment adapters and live bill payers) that has no record of it yet (or whose record
   * failed an hour ago or more). The database says what is done, so a restart neither repeats nor
   * skips a day. Never throws: a provider that cannot be asked is recorded failed; anything else is
   * logged and tried next pass.
   */
  async function runOnce(): Promise<JobRun[]> {
    const now = options.now();
    const day = dayToReconcile(now, options.afterHours);
    const runs: JobRun[] = [];
    let done: Map<string, { status: string; created_at: Date }>;
    try {
      done = new Map((await reconciliationsOfDay(db, day)).map((row) => [row.provider, row]));
    } catch (error) {
      options.log('rail reconciliation: could not read what is done', { day, error: messageOf(error) });
      return runs;
    }
    for (const provider of providerNames()) {
      const earlier = done.get(provider);
      if (earlier && (earlier.status !== 'failed' || now.getTime() - earlier.created_at.getTime() < RECONCILE_RETRY_FAILED_MS)) continue;
      try {
        const record = await reconcile(provider, day);
        runs.push({ provider, day, status: record.status });
      } catch (error) {
        options.log('rail reconciliation could not be recorded', { provider, day, error: messageOf(error) });
      }
    }
    return runs;
  }

  const job: PolledJob<JobRun[]> = polledJob(runOnce, options.intervalMs ?? RECONCILE_JOB_INTERVAL_MS, (error) =>
    options.log('rail reconciliation job failed', { error: messageOf(error) }),
  );

  return {
    reconcile,
    find,
    list,
    recordSettlement,
    settlements,
    /** Configured provider names (payment adapters and live bill payers). */
    providers: providerNames,
    runOnce,
    start: job.start,
    stop: job.stop,
  };
}

export type ReconciliationService = ReturnType<typeof reconciliationService>;

/** The stored rows the routes shape into answers. */
export type { ReconciliationRow, SettlementRow } from './store.ts';
