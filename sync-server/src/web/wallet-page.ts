// The wallet holder's page (/wallet): sign in with @handle and PIN, add money from a phone
// (POST /api/wallet/top-ups) or by bank transfer to her own account number (POST /api/wallet/virtual-account),
// send money out (POST /api/wallet/withdrawals), recent activity.
// The server renders the words; web/src/pages/wallet.ts does the rest (docs/wallet-money.md).
import { type RawHtml, html } from './html.ts';
import type { MessageKey } from '@tapline/shared/i18n';
import type { PageI18n } from './i18n-page.ts';

/** The customer pages' sign-in card (#signin-card: @handle and PIN; web/src/lib/wallet-session.ts handles it), with each page's words. */
export function walletSignInCard(i18n: PageI18n, words: { title: MessageKey; intro: MessageKey; button: MessageKey }): RawHtml {
  const { t } = i18n;
  return html`<section class="card" id="signin-card">
  <h1>${t.t(words.title)}</h1>
  <p class="muted">${t.t(words.intro)}</p>
  <form id="signin-form" autocomplete="on">
    <label for="handle">${t.t('web.pay.handle')}</label>
    <input id="handle" name="username" autocomplete="username" required placeholder="${t.t('web.pay.handlePlaceholder')}" spellcheck="false" autocapitalize="none">
    <label for="pin">${t.t('web.pay.pin')}</label>
    <input id="pin" name="pin" type="password" inputmode="numeric" pattern="[0-9]{4,8}" autocomplete="current-password" required placeholder="${t.t('web.pay.pinPlaceholder')}">
    <button id="signin-button" type="submit" class="primary big">${t.t(words.button)}</button>
    <p id="signin-error" class="error" role="alert"></p>
  </form>
</section>`;
}

/** `offlineQr`: the offline QR page's address, in the language the visitor chose. */
export function walletPageBody(i18n: PageI18n, header: RawHtml, offlineQr: string): RawHtml {
  const { t } = i18n;
  return html`<main class="shell">
${header}
${walletSignInCard(i18n, { title: 'web.wallet.title', intro: 'web.wallet.intro', button: 'web.wallet.signIn' })}
<section class="card" id="balance-card" hidden>
  <div class="row"><p class="muted" id="signed-in-as"></p><button id="signout" type="button" class="link">${t.t('web.wallet.signOut')}</button></div>
  <p class="muted label-small">${t.t('web.wallet.available')}</p>
  <p class="amount-display" id="balance"></p>
  <a class="link" href="${offlineQr}" id="offline-qr-link">${t.t('web.wallet.offlineQr')}</a>
</section>
<section class="card" id="topup-card" hidden>
  <h2>${t.t('web.wallet.topUpTitle')}</h2>
  <form id="topup-form">
    <label for="topup-amount">${t.t('web.wallet.amount')}</label>
    <div class="amount-row"><input id="topup-amount" name="amount" inputmode="decimal" required autocomplete="off"><span class="currency" data-currency></span></div>
    <label for="topup-phone">${t.t('web.wallet.phone')}</label>
    <input id="topup-phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" required aria-describedby="topup-phone-hint">
    <p class="muted hint" id="topup-phone-hint">${t.t('web.wallet.phoneHint')}</p>
    <p class="muted" id="topup-quote" role="status"></p>
    <button id="topup-button" type="submit" class="primary big">${t.t('web.wallet.topUpButton')}</button>
    <p id="topup-error" class="error" role="alert"></p>
  </form>
  <div id="topup-progress" class="progress" hidden>
    <p id="topup-status" role="status"></p>
    <p class="muted" id="topup-countdown"></p>
  </div>
</section>
<section class="card" id="bank-card" hidden>
  <h2>${t.t('web.wallet.bankTitle')}</h2>
  <p class="muted">${t.t('web.wallet.bankIntro')}</p>
  <dl class="bank-details" id="bank-details" hidden>
    <dt>${t.t('web.wallet.bankName')}</dt><dd id="bank-name"></dd>
    <dt>${t.t('web.wallet.bankAccountNumber')}</dt><dd id="bank-account-number" class="account-number"></dd>
    <dt>${t.t('web.wallet.bankAccountName')}</dt><dd id="bank-account-name"></dd>
  </dl>
  <p class="muted" id="bank-fee" role="status"></p>
  <div id="bank-bvn" hidden>
    <label for="bank-bvn-input">${t.t('web.wallet.bvnLabel')}</label>
    <input id="bank-bvn-input" name="bvn" inputmode="numeric" autocomplete="off" maxlength="14" aria-describedby="bank-bvn-hint">
    <p class="muted" id="bank-bvn-hint">${t.t('web.wallet.bvnHint')}</p>
  </div>
  <button id="bank-get" type="button" class="primary big" hidden>${t.t('web.wallet.bankGet')}</button>
  <p id="bank-error" class="error" role="alert"></p>
</section>
<section class="card" id="withdraw-card" hidden>
  <h2>${t.t('web.wallet.withdrawTitle')}</h2>
  <form id="withdraw-form">
    <label for="withdraw-amount">${t.t('web.wallet.amount')}</label>
    <div class="amount-row"><input id="withdraw-amount" name="amount" inputmode="decimal" required autocomplete="off"><span class="currency" data-currency></span></div>
    <label for="withdraw-to">${t.t('web.wallet.to')}</label>
    <select id="withdraw-to" name="to">
      <option value="mobile_wallet">${t.t('web.wallet.toMobile')}</option>
      <option value="bank_account">${t.t('web.wallet.toBank')}</option>
    </select>
    <div id="withdraw-mobile">
      <label for="withdraw-phone">${t.t('web.wallet.phone')}</label>
      <input id="withdraw-phone" name="phone" type="tel" inputmode="tel" autocomplete="tel">
    </div>
    <div id="withdraw-bank" hidden>
      <label for="withdraw-account">${t.t('web.wallet.accountNumber')}</label>
      <input id="withdraw-account" name="account" inputmode="numeric" autocomplete="off">
      <label for="withdraw-bank-code">${t.t('web.wallet.bankCode')}</label>
      <input id="withdraw-bank-code" name="bankCode" autocomplete="off">
    </div>
    <label for="withdraw-pin">${t.t('web.wallet.pin')}</label>
    <input id="withdraw-pin" name="walletPin" type="password" inputmode="numeric" pattern="[0-9]{4,8}" autocomplete="off" required>
    <p class="muted" id="withdraw-quote" role="status"></p>
    <button id="withdraw-button" type="submit" class="primary big">${t.t('web.wallet.withdrawButton')}</button>
    <p id="withdraw-error" class="error" role="alert"></p>
  </form>
  <div id="withdraw-progress" class="progress" hidden>
    <p id="withdraw-status" role="status"></p>
  </div>
</section>
<section class="card" id="history-card" hidden>
  <h2>${t.t('web.wallet.recent')}</h2>
  <p class="muted" id="history-empty">${t.t('web.wallet.none')}</p>
  <ul class="history" id="history"></ul>
  <p id="history-error" class="error" role="alert"></p>
</section>
</main>`;
}
