import { createTransport } from 'nodemailer';
import type { Database } from '../../db/database.ts';
import { Poller } from '../../jobs/poller.ts';
import { claimDueMails, countPendingMails, markMailFailed, markMailSent } from './store.ts';

/** One e-mail. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
}

/**
 * Where e-mail goes. Production: SMTP (SMTP_URL); without it, a transport that only says mail is
 * disabled; tests inject their own (buildApp's `mailTransport`). `send` resolves once the message
 * is accepted and throws when it is not (the job retries).
 */
export interface MailTransport {
  /** false: mail is not configured; mails wait in the outbox until a transport is. */
  readonly enabled: boolean;
  readonly name: string;
  send(message: MailMessage): Promise<void>;
}

/** Connection, greeting and socket timeouts of an SMTP send: a dead server never hangs the job. */
const SMTP_TIMEOUT_MS = 20_000;

/** SMTP through nodemailer, from a URL such as smtps://user:pass@smtp.example.com:465. */
export class SmtpMailTransport implements MailTransport {
  readonly enabled = true;
  readonly name = 'smtp';
  private readonly transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transporter = createTransport({ url, connectionTimeout: SMTP_TIMEOUT_MS, greetingTimeout: SMTP_TIMEOUT_MS, socketTimeout: SMTP_TIMEOUT_MS });
  }

  async send(message: MailMessage): Promise<void> {
    await this.transporter.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text, ...(message.html ? { html: message.html } : {}) });
  }

  close(): void {
    this.transporter.close();
  }
}

/** No SMTP_URL: says so (never crashes); the mails stay pending in the outbox. */
export class DisabledMailTransport implements MailTransport {
  readonly enabled = false;
  readonly name = 'disabled';

  constructor(private readonly log: (message: string) => void) {}

  async send(message: MailMessage): Promise<void> {
    this.log(`mail is disabled (SMTP_URL is not set): not sending "${message.subject}"`);
    throw new Error('mail is disabled: set SMTP_URL');
  }
}

export function mailTransportFromConfig(config: { smtpUrl: string | undefined; mailFrom: string }, log: (message: string) => void): MailTransport {
  return config.smtpUrl ? new SmtpMailTransport(config.smtpUrl, config.mailFrom) : new DisabledMailTransport(log);
}

/** Waits after failed attempts 1..5; the sixth failure marks the mail failed. */
export const MAIL_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000];
/** A claimed mail not settled by then (its sender died) is claimed again. */
const MAIL_LEASE_MS = 2 * 60_000;
const MAILS_PER_CLAIM = 20;
const MAILS_PER_RUN_MAX = 500;

export interface MailRunResult {
  sent: number;
  retrying: number;
  failed: number;
  /** Mails left waiting because mail is disabled. */
  waiting: number;
}

/**
 * Sends the mail outbox. Rows are claimed with FOR UPDATE SKIP LOCKED (several instances share
 * the work) and leased; each is sent outside any transaction and then marked sent, or scheduled
 * for a retry. A crash between the send and the mark sends that mail again when the lease ends:
 * at-least-once delivery, never a lost mail.
 */
export class MailOutbox {
  private readonly poller: Poller | undefined;
  private warnedDisabled = false;

  constructor(
    private readonly db: Database,
    private readonly transport: MailTransport,
    private readonly now: () => Date,
    intervalMs: number,
    private readonly onError: (error: unknown) => void,
    private readonly warn: (message: string) => void,
  ) {
    this.poller = intervalMs > 0 ? new Poller(() => this.runOnce(), intervalMs, onError) : undefined;
  }

  start(): void {
    this.poller?.start();
  }

  async stop(): Promise<void> {
    await this.poller?.stop();
  }

  async runOnce(): Promise<MailRunResult> {
    const result: MailRunResult = { sent: 0, retrying: 0, failed: 0, waiting: 0 };
    if (!this.transport.enabled) {
      result.waiting = await countPendingMails(this.db);
      if (result.waiting > 0 && !this.warnedDisabled) {
        this.warnedDisabled = true;
        this.warn(`mail is disabled (SMTP_URL is not set): ${result.waiting} e-mail(s) wait in the outbox; in-app notices are delivered`);
      }
      return result;
    }
    for (let handled = 0; handled < MAILS_PER_RUN_MAX; ) {
      const now = this.now();
      const claimed = await claimDueMails(this.db, now, new Date(now.getTime() + MAIL_LEASE_MS), MAILS_PER_CLAIM);
      if (claimed.length === 0) break;
      handled += claimed.length;
      for (const mail of claimed) {
        try {
          await this.transport.send({ to: mail.to_address, subject: mail.subject, text: mail.text_body, html: mail.html_body ?? undefined });
          await markMailSent(this.db, mail.id, this.now());
          result.sent += 1;
        } catch (error) {
          const delay = MAIL_RETRY_DELAYS_MS[mail.attempts - 1];
          const retryAt = delay === undefined ? null : new Date(this.now().getTime() + delay);
          await markMailFailed(this.db, mail.id, error instanceof Error ? error.message : String(error), retryAt);
          if (retryAt) result.retrying += 1;
          else result.failed += 1;
          this.onError(error);
        }
      }
    }
    return result;
  }
}
