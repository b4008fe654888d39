/* The built-in web POS (/pos): sign in with a terminal token, charge an amount, show the session's
 * QR code, read a wearable with Web NFC where the browser has it, poll every second, and show the
 * outcome. Plain browser JavaScript, no build step; it uses only the public API. */
/* global document, window, NDEFReader */
'use strict';

(() => {
  // The page's language and its sentences: /web/i18n.js, loaded first (page-script.ts).
  const { t, reason, money, example, time } = window.TaplineI18n;
  const TOKEN_KEY = 'tapline.pos.token';
  const POLL_MS = 1000;
  const TAG_IN_URL = /\/tap\/(TG[0-9A-Fa-f]{8})\/?(?:[?#].*)?$/;
  const TAG_ID = /^TG[0-9A-F]{8}$/;

  const $ = (id) => document.getElementById(id);
  const sections = ['signin', 'charge', 'waiting', 'result'];

  const state = {
    token: null,
    merchant: null,
    session: null,
    pollTimer: null,
    countdownTimer: null,
    nfcAbort: null,
    tapInFlight: false,
  };

  function show(name) {
    for (const section of sections) $(section).hidden = section !== name;
    document.body.dataset.view = name;
  }

  /** Terminal tokens are sent as Bearer term.<64 hex>; accept the token with or without its prefix. */
  function normaliseToken(input) {
    const value = input.trim().replace(/^Bearer\s+/i, '');
    const bare = value.replace(/^term\./, '');
    return /^[0-9a-f]{64}$/.test(bare) ? `term.${bare}` : null;
  }

  async function api(method, path, body, extraHeaders) {
    const headers = { authorization: `Bearer ${state.token}`, ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    return { status: response.status, data };
  }

  /** The error's code in the page's language, else the server's own words. */
  function errorText(result) {
    const data = result.data || {};
    return reason(data.code, typeof data.error === 'string' ? data.error : t('web.pay.serverAnswered', { status: result.status }));
  }

  // ------------------------------------------------------------------ sign in

  async function signIn(token) {
    state.token = token;
    const result = await api('GET', '/api/pos/context');
    if (result.status !== 200) {
      state.token = null;
      return errorText(result);
    }
    state.merchant = result.data;
    localStorage.setItem(TOKEN_KEY, token);
    const terminal = result.data.terminal ? ` · ${result.data.terminal.name}` : '';
    $('who').textContent = `${result.data.merchant.name} ${result.data.merchant.handle}${terminal}${result.data.mode === 'test' ? ` · ${t('common.testMode')}` : ''}`;
    const currency = $('currency');
    if ([...currency.options].some((option) => option.value === result.data.merchant.currency)) currency.value = result.data.merchant.currency;
    showCharge();
    return null;
  }

  function signOut() {
    stopWaiting();
    localStorage.removeItem(TOKEN_KEY);
    state.token = null;
    state.merchant = null;
    $('token').value = '';
    show('signin');
  }

  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('signin-error').textContent = '';
    const token = normaliseToken($('token').value);
    if (!token) {
      $('signin-error').textContent = t('web.pos.tokenInvalid');
      return;
    }
    const problem = await signIn(token);
    if (problem) $('signin-error').textContent = problem;
  });
  $('signout').addEventListener('click', signOut);

  // ------------------------------------------------------------------ charge

  function showCharge() {
    stopWaiting();
    state.session = null;
    $('charge-error').textContent = '';
    $('charge-button').disabled = false;
    show('charge');
    $('amount').focus();
  }

  $('charge-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('charge-error').textContent = '';
    const raw = $('amount').value.trim().replace(',', '.');
    const amount = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || !(amount > 0)) {
      $('charge-error').textContent = t('web.pay.enterAmount', { example: example($('currency').value) });
      return;
    }
    // Start listening for tags inside the click: Web NFC asks for permission on a user gesture.
    startNfc();
    $('charge-button').disabled = true;
    const body = { amount, currency: $('currency').value };
    const description = $('description').value.trim();
    if (description) body.description = description;
    const result = await api('POST', '/api/pos/sessions', body, { 'idempotency-key': crypto.randomUUID() });
    $('charge-button').disabled = false;
    if (result.status !== 201) {
      stopNfc();
      if (result.status === 401) return signOut();
      $('charge-error').textContent = errorText(result);
      return;
    }
    startWaiting(result.data);
  });

  // ------------------------------------------------------------------ waiting for the tap

  function startWaiting(session) {
    state.session = session;
    state.tapInFlight = false;
    $('waiting').dataset.sessionId = session.sessionId;
    $('waiting-amount').textContent = money(session.amount, session.currency);
    $('waiting-description').textContent = session.description || t('web.pos.newSale');
    $('qr').src = `/pos/qr.svg?data=${encodeURIComponent(session.qrPayload)}`;
    $('waiting-error').textContent = '';
    $('manual-tag').value = '';
    show('waiting');
    // The countdown runs on this device's clock from the moment the session arrived: its length
    // is the server's ttlSeconds, so a skewed phone clock cannot shorten or lengthen it.
    const deadline = Date.now() + session.ttlSeconds * 1000;
    const tick = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      $('countdown').textContent = String(left);
    };
    tick();
    state.countdownTimer = window.setInterval(tick, 250);
    state.pollTimer = window.setInterval(poll, POLL_MS);
  }

  function stopWaiting() {
    if (state.pollTimer) window.clearInterval(state.pollTimer);
    if (state.countdownTimer) window.clearInterval(state.countdownTimer);
    state.pollTimer = null;
    state.countdownTimer = null;
    stopNfc();
  }

  async function poll() {
    const session = state.session;
    if (!session) return;
    const result = await api('GET', `/api/pos/sessions/${session.sessionId}`);
    if (state.session !== session) return;
    if (result.status === 200 && result.data.status !== 'pending') finish(result.data);
    else if (result.status === 401) signOut();
  }

  async function sendTap(tagId) {
    const session = state.session;
    if (!session || state.tapInFlight) return;
    state.tapInFlight = true;
    $('nfc-status').textContent = t('web.pos.tagPaying', { tagId });
    const result = await api('POST', `/api/pos/sessions/${session.sessionId}/tap`, { tagId }, { 'idempotency-key': `${session.sessionId}:${tagId}` });
    state.tapInFlight = false;
    if (state.session !== session) return;
    if (result.status === 200) return finish(result.data);
    if (result.status === 409 || result.status === 410) return poll();
    $('waiting-error').textContent = errorText(result);
    $('nfc-status').textContent = t('web.pos.waitingTap');
  }

  $('manual-tap-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const tagId = $('manual-tag').value.trim().toUpperCase();
    if (!TAG_ID.test(tagId)) {
      $('waiting-error').textContent = t('web.pos.tagIdInvalid');
      return;
    }
    $('waiting-error').textContent = '';
    sendTap(tagId);
  });

  $('cancel').addEventListener('click', async () => {
    const session = state.session;
    if (!session) return;
    const result = await api('POST', `/api/pos/sessions/${session.sessionId}/cancel`);
    if (result.status === 200) finish(result.data);
    else if (result.status === 409 || result.status === 410) poll();
    else $('waiting-error').textContent = errorText(result);
  });

  // ------------------------------------------------------------------ Web NFC

  function tagIdFromRecord(record) {
    if (record.recordType !== 'url' && record.recordType !== 'absolute-url') return null;
    const url = new TextDecoder().decode(record.data);
    const match = TAG_IN_URL.exec(url);
    return match ? match[1].toUpperCase() : null;
  }

  function startNfc() {
    if (!('NDEFReader' in window)) {
      $('nfc-status').textContent = t('web.pos.noNfc');
      return;
    }
    if (state.nfcAbort) return;
    const abort = new AbortController();
    state.nfcAbort = abort;
    try {
      const reader = new NDEFReader();
      reader.addEventListener('reading', (event) => {
        for (const record of event.message.records) {
          const tagId = tagIdFromRecord(record);
          if (tagId) return sendTap(tagId);
        }
        $('waiting-error').textContent = t('web.pos.notTapline');
      });
      reader.addEventListener('readingerror', () => {
        $('waiting-error').textContent = t('web.pos.readError');
      });
      reader.scan({ signal: abort.signal }).then(
        () => {
          $('nfc-status').textContent = t('web.pos.waitingTapPhone');
        },
        (error) => {
          state.nfcAbort = null;
          $('nfc-status').textContent = t('web.pos.nfcUnavailable', { reason: error.name });
        },
      );
    } catch (error) {
      state.nfcAbort = null;
      $('nfc-status').textContent = t('web.pos.nfcUnavailable', { reason: error.name || String(error) });
    }
  }

  function stopNfc() {
    if (state.nfcAbort) state.nfcAbort.abort();
    state.nfcAbort = null;
  }

  // ------------------------------------------------------------------ outcome

  const FINAL = ['completed', 'failed', 'expired', 'cancelled'];

  function addDetail(list, label, value) {
    if (value === undefined || value === null || value === '') return;
    const term = document.createElement('dt');
    term.textContent = label;
    const detail = document.createElement('dd');
    detail.textContent = value;
    list.append(term, detail);
  }

  function finish(session) {
    stopWaiting();
    state.session = null;
    const status = session.status;
    $('result').dataset.status = status;
    $('result').dataset.sessionId = session.sessionId;
    $('result-icon').className = `result-icon ${status}`;
    $('result-title').textContent = FINAL.includes(status) ? t(`web.pos.${status}`) : status;
    $('result-amount').textContent = money(session.amount, session.currency);
    const details = $('result-details');
    details.replaceChildren();
    addDetail(details, t('web.pos.payer'), session.payerHandle);
    addDetail(details, t('web.pos.reason'), status === 'completed' ? undefined : session.errorMessage);
    addDetail(details, t('web.pos.reference'), session.walletRef);
    addDetail(details, t('web.pos.for'), session.description);
    addDetail(details, t('web.pos.time'), time(session.endedAt || session.createdAt));
    show('result');
    $('new-sale').focus();
  }

  $('new-sale').addEventListener('click', () => {
    $('amount').value = '';
    $('description').value = '';
    showCharge();
  });

  // ------------------------------------------------------------------ start

  const saved = localStorage.getItem(TOKEN_KEY);
  if (saved) {
    signIn(saved).then((problem) => {
      if (problem) {
        localStorage.removeItem(TOKEN_KEY);
        show('signin');
      }
    });
  } else {
    show('signin');
  }
})();
