import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import {
  BankTransferRecord,
  CreateTopUpBody,
  OpenVirtualAccountBody,
  SandboxBankTransferBody,
  VirtualAccountRecord,
  CreateWithdrawalBody,
  ErrorBody,
  ListOf,
  ListQuery,
  TopUpQuote,
  TopUpQuoteQuery,
  TopUpRecord,
  WithdrawalQuote,
  WithdrawalQuoteQuery,
  WithdrawalRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { notFound } from '../../http/errors.ts';
import { derivedId } from '../../http/idempotency.ts';
import type { TypedApp } from '../../http/typed-app.ts';
import { SANDBOX_PHONE_SUFFIXES, listWalletTopUps } from '../collections/index.ts';
import { checkWalletPin, findWalletById } from '../wallets/index.ts';
import { type Holder, SANDBOX_WITHDRAWAL_SUFFIXES, createTopUp, createWithdrawal, quoteTopUp, quoteWithdrawal, topUpRecord, withdrawalRecord } from './service.ts';
import { findWithdrawal, listWithdrawals } from './store.ts';
import { unmatchedTransferRoutes } from './routes-unmatched.ts';
import { listBankTransfers } from './virtual-accounts-store.ts';
import { accountNumbersOf, bankTransferRecord, openVirtualAccount, requeryVirtualAccount, sandboxBankTransfer, virtualAccountRecord, virtualAccountsOf } from './virtual-accounts.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const wallet = { auth: ['wallet'] } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });
const IdempotencyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; required' })) });

function holderOf(request: FastifyRequest): Holder {
  const principal = principalAs(request, 'wallet');
  return { walletId: principal.walletId, handle: principal.handle, mode: principal.mode };
}

const TOP_UP_FLOW = `A wallet holder funds her wallet from her phone (docs/wallet-money.md): the phone is asked to pay amount + fee (M-Pesa
Express STK push in KE, MTN MoMo request-to-pay where MTN operates, else any configured provider that collects; RAIL_ROUTES
mobile_money order), she approves on the phone, and the wallet is credited amount exactly once when the provider confirms (its
callback or a status poll, whichever comes first: the collection's row is locked, one ledger transfer per top-up). States: pending
-> completed | failed | expired; expiresAt is COLLECTION_TIMEOUT_SECONDS (default 120) after creation. The fee is
WALLET_TOP_UP_FEE_PCT (default 0) of amount, rounded up, stated before confirmation by GET /api/wallet/top-ups/quote and in every
answer (fee, total). Test mode (a test wallet): the sandbox answers after SANDBOX_STEP_MS, approved except the magic numbers (last
four digits) ${SANDBOX_PHONE_SUFFIXES.declined} declined, ${SANDBOX_PHONE_SUFFIXES.insufficient_funds} insufficient funds (failed),
${SANDBOX_PHONE_SUFFIXES.no_answer} no answer (expired). On completion, in one transaction: the state, the ledger transfer (rail_clearing:<provider>
live, funding in the sandbox -> the wallet, the fee to fees) and the holder's notification wallet.top_up.completed (GET
/api/wallet/notifications); a failure or expiry: wallet.top_up.failed.`;

const WITHDRAWAL_FLOW = `A wallet holder sends her own money to her mobile money number or bank account (docs/wallet-money.md): a payout through the
rails (M-Pesa B2C, MTN MoMo disbursement, Paystack and Flutterwave transfers; the payout route table), confirmed with her wallet
PIN. The wallet is debited amount + fee in the transaction that records the withdrawal (422 insufficient_funds otherwise: a wallet
never goes below zero); the payment scheduler pays it out, never twice (the provider's idempotency key derives from the id, and an
unknown outcome is looked up before any resend). A withdrawal that fails, or is reversed after it was paid, returns amount + fee to
the wallet (one correcting ledger transfer). States: pending -> processing -> completed | failed | reversed. The fee is
WALLET_WITHDRAWAL_FEE_PCT (default 0) of amount, rounded up. Limits, in the wallet's currency from US dollars at the FX mid rate,
rounded down: one withdrawal at most WALLET_WITHDRAWAL_MAX_USD (default 1000), the last 24 hours' withdrawals at most
WALLET_WITHDRAWAL_DAILY_USD (default 2000); both in GET /api/wallet/withdrawals/quote. Test mode: the sandbox, by the destination's last
four digits: ${SANDBOX_WITHDRAWAL_SUFFIXES.sandbox_failure} fails at the provider (money back at once), ${SANDBOX_WITHDRAWAL_SUFFIXES.sandbox_pending}
stays pending, ${SANDBOX_WITHDRAWAL_SUFFIXES.sandbox_reversal} is paid and then reversed one step later (money back); any other is paid
after two SANDBOX_STEP_MS steps. The holder's notifications: wallet.withdrawal.paid, wallet.withdrawal.failed, wallet.withdrawal.reversed.`;

const BANK_TRANSFER_FLOW = `A wallet holder tops up by bank transfer (docs/wallet-money.md, "Top-ups by bank transfer"): her wallet gets its own
virtual bank account per currency (live: a Paystack dedicated virtual account, NGN or GHS, or a permanent Flutterwave virtual account
number, NGN, made with the holder's BVN; the provider is WALLET_VIRTUAL_ACCOUNT_PROVIDER when set, else the first configured that
makes accounts in the currency; test mode: a sandbox account), and anyone may pay into it from any bank. Each transfer is credited
exactly once when the provider confirms it (Paystack's signed charge.success webhook on the dedicated_nuban channel, confirmed with
its GET /transaction/verify; Flutterwave's charge.completed with verif-hash, payment_type bank_transfer, confirmed with GET
/v3/transactions/{id}/verify; keyed on the provider's transaction reference, so a duplicate webhook, a requery or a retry change
nothing). The fee is WALLET_BANK_TRANSFER_FEE_PCT (default 0) of what arrives, rounded up, kept
from it; the account's answer states it (feePercent, fee) before anything is sent. On crediting, in one transaction: the record, the
ledger transfer (rail_clearing:<provider> live, funding in the sandbox -> the wallet, the fee to fees) and the holder's notification
wallet.top_up.completed (data.method bank_transfer). The wallet's tier (docs/wallet-tiers.md) counts it as money in; a transfer
that passes the tier cannot be refused at the bank, so it is credited and flagged beyondLimit.`;

/** Wallet money: top-ups and withdrawals from the wallet's session. */
export async function walletMoneyRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  // The operator's side of bank transfers: those we could not match (admin token).
  await unmatchedTransferRoutes(app, context);

  app.get('/api/wallet/top-ups/quote', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'What a top-up costs before it is asked for: amount, fee, total the phone pays, and the provider',
      description: `${TOP_UP_FLOW}\n\n400 currency_not_accepted (not the wallet's currency).`,
      querystring: TopUpQuoteQuery,
      response: { 200: TopUpQuote, ...errors },
    },
  }, async (request) => quoteTopUp(context, holderOf(request), request.query));

  app.post('/api/wallet/top-ups', {
    config: { ...wallet, idempotency: 'required' },
    schema: {
      tags: ['wallet'],
      summary: 'Top up the wallet from a mobile money number (Idempotency-Key required)',
      description: `${TOP_UP_FLOW}\n\nIdempotency-Key required: the top-up's id derives from it, so a retry (even after a crash)
answers the same top-up and never prompts the phone twice. 400 invalid_phone, 400 currency_not_accepted, 422 top_up_unavailable (live
mode: no provider collects in the wallet's country). The wallet's verification tier (GET /api/wallet/tier, docs/wallet-tiers.md) is
checked when the top-up is asked for, and its amount held against the limits until the provider answers (a confirmed top-up is
always credited): 422 tier_daily_in_limit_exceeded, 422 tier_balance_limit_exceeded, each with a sentence saying what is left.`,
      headers: IdempotencyHeader,
      body: CreateTopUpBody,
      response: { 201: TopUpRecord, ...errors },
    },
  }, async (request, reply) => {
    const row = await createTopUp(context, holderOf(request), request.body, derivedId(request, 'wallet_top_up', 'col'));
    return reply.status(201).send(topUpRecord(row));
  });

  app.get('/api/wallet/top-ups', {
    config: wallet,
    schema: { tags: ['wallet'], summary: 'The wallet\'s top-ups, newest first', description: TOP_UP_FLOW, querystring: ListQuery, response: { 200: ListOf(TopUpRecord), ...errors } },
  }, async (request) => {
    const holder = holderOf(request);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listWalletTopUps(db, holder.walletId, holder.mode, limit, offset);
    const rows = await Promise.all(page.rows.map((row) => context.collections.current(row)));
    return { data: rows.map(topUpRecord), total: page.total, limit, offset };
  });

  app.get('/api/wallet/top-ups/:id', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'A top-up: poll it while the phone is asked (404 top_up_not_found for another wallet\'s)',
      description: TOP_UP_FLOW,
      params: IdParams,
      response: { 200: TopUpRecord, ...errors },
    },
  }, async (request) => topUpRecord(await context.collections.getTopUp(holderOf(request), request.params.id)));

  app.post('/api/wallet/virtual-account', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'The wallet\'s virtual bank account for a currency: made on the first call, the same one after (201 made, 200 had)',
      description: `${BANK_TRANSFER_FLOW}\n\n400 currency_not_accepted (not the wallet's currency), 422 virtual_account_unavailable (live: no provider
makes accounts in the wallet's currency, or it could not answer now; try again), 422 bvn_required (Flutterwave makes a permanent account
number only with the holder's BVN: send bvn, 11 digits; it is passed to Flutterwave and never stored).`,
      body: OpenVirtualAccountBody,
      response: { 200: VirtualAccountRecord, 201: VirtualAccountRecord, ...errors },
    },
  }, async (request, reply) => {
    const opened = await openVirtualAccount(context, holderOf(request), request.body ?? {});
    return reply.status(opened.created ? 201 : 200).send(virtualAccountRecord(context, opened.row));
  });

  app.get('/api/wallet/virtual-accounts', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'The wallet\'s virtual bank accounts (none until POST /api/wallet/virtual-account)',
      description: BANK_TRANSFER_FLOW,
      response: { 200: Type.Object({ data: Type.Array(VirtualAccountRecord) }), ...errors },
    },
  }, async (request) => ({ data: (await virtualAccountsOf(context, holderOf(request))).map((row) => virtualAccountRecord(context, row)) }));

  app.post('/api/wallet/virtual-account/requery', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'Ask the provider to look again for today\'s transfers into the account (what it finds arrives by its webhook)',
      description: `${BANK_TRANSFER_FLOW}\n\nPaystack: GET /dedicated_account/requery. Flutterwave has no requery: the day's transactions into the
account (GET /v3/transactions) are asked to be sent again (POST /v3/transactions/{id}/resend-hook). The sandbox has nothing to look for. 422 virtual_account_not_found,
422 virtual_account_unavailable.`,
      body: OpenVirtualAccountBody,
      response: { 200: VirtualAccountRecord, ...errors },
    },
  }, async (request) => virtualAccountRecord(context, await requeryVirtualAccount(context, holderOf(request), request.body?.currency)));

  app.get('/api/wallet/bank-transfers', {
    config: wallet,
    schema: { tags: ['wallet'], summary: 'Bank transfers credited to the wallet, newest first', description: BANK_TRANSFER_FLOW, querystring: ListQuery, response: { 200: ListOf(BankTransferRecord), ...errors } },
  }, async (request) => {
    const holder = holderOf(request);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listBankTransfers(db, holder.walletId, holder.mode, limit, offset);
    const numbers = await accountNumbersOf(context, holder);
    return { data: page.rows.map((row) => bankTransferRecord(row, numbers.get(row.virtual_account_id ?? '') ?? '')), total: page.total, limit, offset };
  });

  app.post('/api/wallet/virtual-account/sandbox-transfer', {
    config: { ...wallet, idempotency: 'optional' },
    schema: {
      tags: ['wallet'],
      summary: 'Test wallets: simulate a bank transfer into the sandbox virtual account (credited like a provider\'s)',
      description: `${BANK_TRANSFER_FLOW}\n\nTest mode only (422 sandbox_only for a live wallet). The transfer's reference derives from the
Idempotency-Key when one is sent, so a retry credits nothing twice. 422 virtual_account_not_found.`,
      headers: IdempotencyHeader,
      body: SandboxBankTransferBody,
      response: { 201: BankTransferRecord, ...errors },
    },
  }, async (request, reply) => {
    const holder = holderOf(request);
    const reference = derivedId(request, 'wallet_sandbox_bank_transfer', 'sbt') ?? `sbt_${randomUUID().replaceAll('-', '')}`;
    const row = await sandboxBankTransfer(context, holder, request.body, reference);
    const numbers = await accountNumbersOf(context, holder);
    return reply.status(201).send(bankTransferRecord(row, numbers.get(row.virtual_account_id ?? '') ?? ''));
  });

  app.get('/api/wallet/withdrawals/quote', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'What a withdrawal costs and what is left of the limits, before confirming it with the PIN',
      description: `${WITHDRAWAL_FLOW}\n\n400 currency_not_accepted (not the wallet's currency).`,
      querystring: WithdrawalQuoteQuery,
      response: { 200: WithdrawalQuote, ...errors },
    },
  }, async (request) => quoteWithdrawal(context, holderOf(request), request.query));

  /** The withdrawal route's request as its schemas type it, for its body-credential callbacks (http/idempotency.ts). */
  type WithdrawRequest = FastifyRequest<{ Body: Static<typeof CreateWithdrawalBody> }>;
  app.post('/api/wallet/withdrawals', {
    config: {
      ...wallet,
      idempotency: 'required',
      // The PIN stays out of the stored request hash; a replay asks for it again, and a wrong PIN does not use the key up.
      idempotencyBodyCredential: {
        scope: (request: WithdrawRequest) => `wallet:${principalAs(request, 'wallet').walletId}`,
        secrets: ['walletPin'],
        beforeReplay: async (request: WithdrawRequest) => {
          const principal = principalAs(request, 'wallet');
          const row = await findWalletById(db, principal.walletId);
          if (!row) throw notFound('wallet_not_found', 'Wallet not found');
          await checkWalletPin(db, row, request.body.walletPin, context.now());
        },
        forgetStatuses: [403, 429],
      },
    },
    schema: {
      tags: ['wallet'],
      summary: 'Withdraw to a mobile money number or bank account, confirmed with the wallet PIN (Idempotency-Key required)',
      description: `${WITHDRAWAL_FLOW}\n\nThe destination: destination {type: mobile_wallet, phone, provider?} or {type: bank_account,
accountNumber, bankCode (required live), country?, provider?}, or destinationIndex, one of the holder's saved destinations (GET
/api/wallet/destinations). Its country's currency must be the withdrawal's. Idempotency-Key required: the withdrawal's id derives
from it, so a retry answers the same withdrawal and pays nothing twice; the PIN is checked again on a replay. 400 destination_required,
400 destination_not_found, 400 destination_invalid, 400 destination_currency_mismatch, 400 invalid_phone, 400 currency_not_accepted,
403 wrong_pin, 403 pin_not_set, 429 pin_attempts_exceeded, 422 insufficient_funds, 422 withdrawal_limit_exceeded, 422
withdrawal_daily_limit_exceeded, 422 tier_daily_out_limit_exceeded (the wallet's verification tier: its money out in 24 hours,
withdrawals, agent cash-out and payments to other people together; GET /api/wallet/tier), 422 rail_unavailable (no rail or, live, no payout provider for the destination's country), 422
amount_not_payable (live: the provider cannot pay that amount, e.g. M-Pesa pays whole shillings only; nothing is debited).`,
      headers: IdempotencyHeader,
      body: CreateWithdrawalBody,
      response: { 201: WithdrawalRecord, ...errors },
    },
  }, async (request, reply) => {
    const holder = holderOf(request);
    const id = derivedId(request, 'wallet_withdrawal', 'wd')!;
    const created = await createWithdrawal(context, holder, request.body, id);
    let row = created.row;
    if (created.created && row.scenario === 'provider') {
      // Submitted to the payout adapter now; the scheduler retries if this process dies first.
      await context.payments.runPayment(row.id);
      row = (await findWithdrawal(db, row.id)) ?? row;
    }
    return reply.status(201).send(withdrawalRecord(row));
  });

  app.get('/api/wallet/withdrawals', {
    config: wallet,
    schema: { tags: ['wallet'], summary: 'The wallet\'s withdrawals, newest first', description: WITHDRAWAL_FLOW, querystring: ListQuery, response: { 200: ListOf(WithdrawalRecord), ...errors } },
  }, async (request) => {
    const holder = holderOf(request);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listWithdrawals(db, holder.walletId, holder.mode, limit, offset);
    return { data: page.rows.map(withdrawalRecord), total: page.total, limit, offset };
  });

  app.get('/api/wallet/withdrawals/:id', {
    config: wallet,
    schema: {
      tags: ['wallet'],
      summary: 'A withdrawal, with its timeline (404 withdrawal_not_found for another wallet\'s)',
      description: WITHDRAWAL_FLOW,
      params: IdParams,
      response: { 200: WithdrawalRecord, ...errors },
    },
  }, async (request) => {
    const holder = holderOf(request);
    const row = await findWithdrawal(db, request.params.id);
    if (!row || row.source_wallet_id !== holder.walletId || row.mode !== holder.mode) throw notFound('withdrawal_not_found', `No withdrawal ${request.params.id.slice(0, 80)} of this wallet`);
    return withdrawalRecord(row);
  });
}
