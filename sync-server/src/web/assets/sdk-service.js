/* Tapline checkout drop-in, served at {base_url}/sdk/service.js and embedded by merchants' pages:
 *
 *   <script src="https://tapline.example/sdk/service.js"></script>
 *   Tapline.checkout({ publishableKey: 'pk_test_…', amount: 12.5, currency: 'NGN', reference: 'order-42',
 *                      onSuccess: function (session) { … }, onCancel: function () { … } });
 *
 * It opens a checkout session with the publishable key, detects the customer's country and offers
 * the rails the session answered (mobile money, bank transfer, QR) plus paying from a Tapline
 * wallet. Dependency-free ES2019 in one IIFE; the modal lives in a shadow root so the merchant's
 * CSS cannot reach it (and ours cannot leak out). */
/* global window, document, CSSStyleSheet */
(function () {
  'use strict';
  if (window.Tapline && window.Tapline.checkout) return;

  var SCRIPT_PATH = /\/sdk\/service\.js(?:[?#].*)?$/;
  var POLL_INTERVAL_MS = 1000;
  /** Countries the service serves: the 54 African countries, US and GB. */
  var AFRICAN = ('DZ AO BJ BW BF BI CV CM CF TD KM CD CG CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY MG MW ML MR MU MA MZ NA NE NG RW ' +
    'ST SN SC SL SO ZA SS SD TZ TG TN UG ZM ZW').split(' ');
  var OTHER_SUPPORTED = ['US', 'GB'];
  /** African IANA time zones and their countries (zones shared by several countries name the largest). */
  var AFRICAN_ZONES = {
    'Africa/Abidjan': 'CI', 'Africa/Accra': 'GH', 'Africa/Addis_Ababa': 'ET', 'Africa/Algiers': 'DZ', 'Africa/Asmara': 'ER',
    'Africa/Bamako': 'ML', 'Africa/Bangui': 'CF', 'Africa/Banjul': 'GM', 'Africa/Bissau': 'GW', 'Africa/Blantyre': 'MW',
    'Africa/Brazzaville': 'CG', 'Africa/Bujumbura': 'BI', 'Africa/Cairo': 'EG', 'Africa/Casablanca': 'MA', 'Africa/Ceuta': 'MA',
    'Africa/Conakry': 'GN', 'Africa/Dakar': 'SN', 'Africa/Dar_es_Salaam': 'TZ', 'Africa/Djibouti': 'DJ', 'Africa/Douala': 'CM',
    'Africa/El_Aaiun': 'MA', 'Africa/Freetown': 'SL', 'Africa/Gaborone': 'BW', 'Africa/Harare': 'ZW', 'Africa/Johannesburg': 'ZA',
    'Africa/Juba': 'SS', 'Africa/Kampala': 'UG', 'Africa/Khartoum': 'SD', 'Africa/Kigali': 'RW', 'Africa/Kinshasa': 'CD',
    'Africa/Lagos': 'NG', 'Africa/Libreville': 'GA', 'Africa/Lome': 'TG', 'Africa/Luanda': 'AO', 'Africa/Lubumbashi': 'CD',
    'Africa/Lusaka': 'ZM', 'Africa/Malabo': 'GQ', 'Africa/Maputo': 'MZ', 'Africa/Maseru': 'LS', 'Africa/Mbabane': 'SZ',
    'Africa/Mogadishu': 'SO', 'Africa/Monrovia': 'LR', 'Africa/Nairobi': 'KE', 'Africa/Ndjamena': 'TD', 'Africa/Niamey': 'NE',
    'Africa/Nouakchott': 'MR', 'Africa/Ouagadougou': 'BF', 'Africa/Porto-Novo': 'BJ', 'Africa/Sao_Tome': 'ST', 'Africa/Tripoli': 'LY',
    'Africa/Tunis': 'TN', 'Africa/Windhoek': 'NA', 'Atlantic/Cape_Verde': 'CV', 'Indian/Antananarivo': 'MG', 'Indian/Comoro': 'KM',
    'Indian/Mahe': 'SC', 'Indian/Mauritius': 'MU', 'Indian/Mayotte': 'KM',
  };
  var RAIL_LABELS = { mobile_money: 'Mobile money', bank_transfer: 'Bank transfer', qr: 'QR code', wallet: 'Tapline wallet' };

  /** {base_url}: where this very script was loaded from. */
  function findBaseUrl() {
    var script = document.currentScript;
    if (!script || !SCRIPT_PATH.test(script.src)) {
      var scripts = document.querySelectorAll('script[src]');
      for (var i = scripts.length - 1; i >= 0; i--) {
        if (SCRIPT_PATH.test(scripts[i].src)) {
          script = scripts[i];
          break;
        }
      }
    }
    return script ? script.src.replace(SCRIPT_PATH, '') : '';
  }
  var BASE_URL = findBaseUrl();

  function regionOf(tag) {
    var match = /^[a-z]{2,3}(?:[-_][A-Za-z]{4})?[-_]([A-Za-z]{2})\b/i.exec(tag || '');
    return match ? match[1].toUpperCase() : undefined;
  }

  /**
   * The customer's country, or undefined to let the server decide (a CDN's country header, else the
   * merchant's). An African region in the browser's languages wins, then an African time zone; a US
   * or GB language region only after them, since en-US is many browsers' default wherever they are.
   */
  function detectCountry() {
    var languages = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]).map(regionOf);
    var i;
    for (i = 0; i < languages.length; i++) if (AFRICAN.indexOf(languages[i]) !== -1) return languages[i];
    try {
      var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (zone && Object.prototype.hasOwnProperty.call(AFRICAN_ZONES, zone)) return AFRICAN_ZONES[zone];
    } catch {
      // No Intl time zone: fall through.
    }
    for (i = 0; i < languages.length; i++) if (OTHER_SUPPORTED.indexOf(languages[i]) !== -1) return languages[i];
    return undefined;
  }

  /** A random Idempotency-Key; crypto.randomUUID needs a secure context, merchants' pages may not be one. */
  function randomKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (byte) { return (byte < 16 ? '0' : '') + byte.toString(16); }).join('');
  }

  function formatAmount(amount, currency) {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency, currencyDisplay: 'code' }).format(amount);
    } catch {
      return currency + ' ' + amount;
    }
  }

  /** Calls the API; resolves {status, data} for every HTTP answer, rejects only on network failure. */
  function api(method, path, body, headers) {
    var init = { method: method, headers: Object.assign({}, headers || {}) };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(BASE_URL + path, init).then(function (response) {
      return response.json().then(
        function (data) { return { status: response.status, data: data }; },
        function () { return { status: response.status, data: null }; },
      );
    });
  }

  function errorText(result) {
    if (result.data && typeof result.data.error === 'string') return result.data.error;
    return 'The payment service answered ' + result.status;
  }

  var STYLE = [
    ':host{all:initial}',
    '.overlay{position:fixed;inset:0;z-index:2147483647;background:rgba(11,31,23,.55);display:flex;align-items:center;justify-content:center;',
    'font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#17211c}',
    '.dialog{box-sizing:border-box;width:min(26rem,calc(100vw - 1.5rem));max-height:calc(100vh - 1.5rem);overflow:auto;background:#fff;',
    'border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.3);padding:1.25rem 1.25rem 1rem}',
    '.head{display:flex;align-items:flex-start;justify-content:space-between;gap:1rem}',
    '.merchant{color:#5b6b63;font-size:.9rem;margin:0}.amount{font-size:1.8rem;font-weight:700;margin:.1rem 0 0}',
    '.description{margin:.25rem 0 0;color:#37463f}.badge{display:inline-block;background:#fff3cd;padding:.05rem .45rem;border-radius:6px;font-size:.75rem;margin-top:.3rem}',
    '.close{border:0;background:none;font-size:1.6rem;line-height:1;cursor:pointer;color:#5b6b63;padding:.1rem .3rem}',
    '.tabs{display:flex;flex-wrap:wrap;gap:.35rem;margin:1rem 0 .5rem}',
    '.tab{flex:1 1 auto;border:1px solid #b9c4be;background:#fff;border-radius:8px;padding:.45rem .6rem;font:inherit;font-size:.9rem;cursor:pointer;color:inherit}',
    '.tab[aria-selected="true"]{background:#0f5132;border-color:#0f5132;color:#fff}',
    'label{display:block;margin-top:.8rem;font-weight:600;font-size:.95rem}',
    'input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #b9c4be;border-radius:8px;margin-top:.25rem;color:inherit;background:#fff}',
    '.pay{margin-top:1rem;width:100%;padding:.75rem;font:inherit;font-weight:600;border:0;border-radius:8px;background:#0f5132;color:#fff;cursor:pointer}',
    '.pay:disabled{opacity:.6;cursor:default}.hint{color:#5b6b63;font-size:.85rem;margin:.5rem 0 0}',
    '.error{color:#a61b1b;min-height:1.2em;margin:.6rem 0 0;overflow-wrap:anywhere}',
    '.center{text-align:center}.qr{display:block;width:220px;height:220px;margin:.5rem auto}',
    '.busy{display:flex;align-items:center;justify-content:center;gap:.6rem;color:#5b6b63;margin:1rem 0}',
    '.spinner{width:1.2rem;height:1.2rem;border:3px solid #cfd8d3;border-top-color:#0f5132;border-radius:50%;animation:spin .8s linear infinite}',
    '@keyframes spin{to{transform:rotate(360deg)}}',
    '.icon{width:3.2rem;height:3.2rem;border-radius:50%;margin:.8rem auto .4rem;display:flex;align-items:center;justify-content:center;font-size:1.8rem;color:#fff}',
    '.icon.paid{background:#198754}.icon.failed{background:#a61b1b}',
    '[hidden]{display:none!important}',
  ].join('');

  /** Styles for the shadow root: a constructed sheet where supported (no inline <style> for a page's CSP to refuse). */
  function applyStyle(root) {
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
      root.adoptedStyleSheets = [sheet];
    } catch {
      var style = document.createElement('style');
      style.textContent = STYLE;
      root.appendChild(style);
    }
  }

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') node.textContent = value;
      else node.setAttribute(name, value === true ? '' : value);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function field(id, label, attributes) {
    return [el('label', { for: id, text: label }), el('input', Object.assign({ id: id }, attributes))];
  }

  /** Opens the checkout modal. Returns {close}. */
  function checkout(options) {
    options = options || {};
    var onSuccess = typeof options.onSuccess === 'function' ? options.onSuccess : function () {};
    var onCancel = typeof options.onCancel === 'function' ? options.onCancel : function () {};
    var session = null;
    var finished = false;
    var closed = false;
    var pollTimer = null;
    var activeTab = null;
    var attemptKeys = {};

    var host = el('div', { 'data-tapline-checkout': '' });
    var root = host.attachShadow({ mode: 'open' });
    applyStyle(root);
    var closeButton = el('button', { class: 'close', type: 'button', 'aria-label': 'Close', text: '\u00d7' });
    var merchantLine = el('p', { class: 'merchant', text: 'Checkout' });
    var amountLine = el('p', { class: 'amount', id: 'amount', text: formatAmount(options.amount, options.currency) });
    var summary = el('div', {}, [merchantLine, amountLine]);
    if (options.description) summary.appendChild(el('p', { class: 'description', text: options.description }));
    var busy = el('div', { class: 'busy', id: 'busy', role: 'status' }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }), el('span', { id: 'busy-text', text: 'Preparing your checkout…' })]);
    var tabs = el('div', { class: 'tabs', role: 'tablist', hidden: true });
    var panels = el('div', { id: 'panels' });
    var error = el('p', { class: 'error', id: 'error', role: 'alert' });
    var result = el('div', { class: 'center', id: 'result', hidden: true });
    var dialog = el('div', { class: 'dialog', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Tapline checkout' }, [
      el('div', { class: 'head' }, [summary, closeButton]), busy, tabs, panels, error, result,
    ]);
    var overlay = el('div', { class: 'overlay', id: 'overlay' }, [dialog]);
    root.appendChild(overlay);
    document.body.appendChild(host);

    function setBusy(text) {
      busy.hidden = !text;
      if (text) root.getElementById('busy-text').textContent = text;
    }

    function stopPolling() {
      if (pollTimer !== null) clearTimeout(pollTimer);
      pollTimer = null;
    }

    function close() {
      if (closed) return;
      closed = true;
      stopPolling();
      document.removeEventListener('keydown', onKey, true);
      if (host.parentNode) host.parentNode.removeChild(host);
      if (!finished) onCancel();
    }

    function onKey(event) {
      if (event.key === 'Escape') close();
    }
    document.addEventListener('keydown', onKey, true);
    closeButton.addEventListener('click', close);
    overlay.addEventListener('click', function (event) {
      if (event.target === overlay) close();
    });

    /** The end of the checkout: paid (onSuccess) or failed; either way the form is gone. */
    function showOutcome(answer) {
      session = answer;
      stopPolling();
      setBusy('');
      tabs.hidden = true;
      panels.hidden = true;
      error.textContent = '';
      result.hidden = false;
      result.dataset.status = answer.status;
      result.textContent = '';
      var paid = answer.status === 'paid';
      result.appendChild(el('div', { class: 'icon ' + (paid ? 'paid' : 'failed'), 'aria-hidden': 'true', text: paid ? '\u2713' : '\u00d7' }));
      result.appendChild(el('h2', { id: 'result-title', text: paid ? 'Payment received' : answer.status === 'expired' ? 'Checkout expired' : 'Payment failed' }));
      result.appendChild(el('p', {
        id: 'result-message',
        text: paid
          ? formatAmount(answer.amount, answer.currency) + ' paid to ' + answer.merchant.name + (answer.reference ? ' for ' + answer.reference : '') + '.'
          : answer.failureReason || 'The payment did not go through.',
      }));
      var done = el('button', { class: 'pay', id: 'done', type: 'button', text: paid ? 'Done' : 'Close' });
      done.addEventListener('click', close);
      result.appendChild(done);
      if (paid && !finished) {
        finished = true;
        onSuccess(answer);
      }
    }

    /** Sends a payment; one Idempotency-Key per tab and inputs, so a double click cannot pay twice. */
    function pay(button, body) {
      error.textContent = '';
      button.disabled = true;
      var signature = JSON.stringify(body);
      if (!attemptKeys[signature]) attemptKeys[signature] = randomKey();
      setBusy(body.method === 'wallet' ? 'Paying from your wallet…' : 'Waiting for the payment…');
      api('POST', '/api/checkout/sessions/' + encodeURIComponent(session.id) + '/pay', body, { 'idempotency-key': attemptKeys[signature] })
        .then(function (answer) {
          setBusy('');
          button.disabled = false;
          if (answer.status === 200) return showOutcome(answer.data);
          // A retry with other inputs gets a new key; a wrong PIN's key is released by the server.
          delete attemptKeys[signature];
          error.textContent = errorText(answer);
        })
        .catch(function () {
          setBusy('');
          button.disabled = false;
          error.textContent = 'Network error: check your connection and try again.';
        });
    }

    function poll() {
      stopPolling();
      pollTimer = setTimeout(function () {
        api('GET', '/api/checkout/sessions/' + encodeURIComponent(session.id), undefined, { authorization: 'Bearer ' + options.publishableKey })
          .then(function (answer) {
            if (closed || activeTab !== 'qr') return;
            if (answer.status === 200 && answer.data.status !== 'open') return showOutcome(answer.data);
            poll();
          })
          .catch(function () {
            if (!closed && activeTab === 'qr') poll();
          });
      }, POLL_INTERVAL_MS);
    }

    function panelFor(rail) {
      var panel = el('div', { role: 'tabpanel', 'data-panel': rail, hidden: true });
      var button = el('button', { class: 'pay', type: 'button', id: 'pay-' + rail, text: 'Pay ' + formatAmount(session.amount, session.currency) });
      var sandbox = session.mode === 'test' ? el('p', { class: 'hint', text: 'Test mode: the sandbox collects at once, nothing is charged.' }) : null;
      if (rail === 'wallet') {
        field('tp-handle', 'Your @handle', { autocomplete: 'username', placeholder: '@yourname', spellcheck: 'false', autocapitalize: 'none' })
          .concat(field('tp-pin', 'Wallet PIN', { type: 'password', inputmode: 'numeric', autocomplete: 'current-password', placeholder: '4 to 8 digits' }))
          .forEach(function (node) { panel.appendChild(node); });
        button.addEventListener('click', function () {
          var handle = root.getElementById('tp-handle').value.trim();
          var pin = root.getElementById('tp-pin').value.trim();
          if (!/^@?[A-Za-z0-9_.]{3,30}$/.test(handle)) return void (error.textContent = 'Enter your @handle');
          if (!/^[0-9]{4,8}$/.test(pin)) return void (error.textContent = 'Your PIN is 4 to 8 digits');
          pay(button, { method: 'wallet', handle: handle, pin: pin });
        });
      } else if (rail === 'mobile_money') {
        field('tp-phone', 'Mobile money number', { type: 'tel', autocomplete: 'tel', placeholder: '+234 801 234 5678' }).forEach(function (node) { panel.appendChild(node); });
        button.addEventListener('click', function () {
          var phone = root.getElementById('tp-phone').value.replace(/[\s().-]/g, '');
          if (!/^\+?[0-9]{7,15}$/.test(phone)) return void (error.textContent = 'Enter your mobile money number, such as +2348012345678');
          pay(button, { method: 'mobile_money', phone: phone });
        });
      } else if (rail === 'bank_transfer') {
        field('tp-account', 'Bank account number', { inputmode: 'numeric', autocomplete: 'off', placeholder: '0123456789' }).forEach(function (node) { panel.appendChild(node); });
        button.addEventListener('click', function () {
          var account = root.getElementById('tp-account').value.replace(/\s/g, '');
          if (!/^[0-9A-Za-z]{6,34}$/.test(account)) return void (error.textContent = 'Enter your account number (6 to 34 letters or digits)');
          pay(button, { method: 'bank_transfer', accountNumber: account });
        });
      } else {
        panel.className = 'center';
        panel.appendChild(el('img', { class: 'qr', id: 'tp-qr', alt: 'QR code: scan it with your phone to pay', src: BASE_URL + '/pos/qr.svg?data=' + encodeURIComponent(session.qrPayload) }));
        panel.appendChild(el('p', { class: 'hint', text: 'Scan with your phone camera or mobile wallet, then pay with your @handle and PIN.' }));
        panel.appendChild(el('div', { class: 'busy' }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }), el('span', { text: 'Waiting for payment…' })]));
        return panel;
      }
      if (sandbox && rail !== 'wallet') panel.appendChild(sandbox);
      panel.appendChild(button);
      return panel;
    }

    function select(rail) {
      activeTab = rail;
      error.textContent = '';
      Array.prototype.forEach.call(tabs.children, function (tab) { tab.setAttribute('aria-selected', String(tab.dataset.tab === rail)); });
      Array.prototype.forEach.call(panels.children, function (panel) { panel.hidden = panel.dataset.panel !== rail; });
      if (rail === 'qr') poll();
      else stopPolling();
    }

    function render() {
      setBusy('');
      merchantLine.textContent = 'Pay ' + session.merchant.name;
      amountLine.textContent = formatAmount(session.amount, session.currency);
      if (session.mode === 'test') summary.appendChild(el('span', { class: 'badge', text: 'Test mode' }));
      session.rails.concat(['wallet']).forEach(function (rail) {
        var tab = el('button', { class: 'tab', type: 'button', role: 'tab', 'data-tab': rail, 'aria-selected': 'false', text: RAIL_LABELS[rail] || rail });
        tab.addEventListener('click', function () { select(rail); });
        tabs.appendChild(tab);
        panels.appendChild(panelFor(rail));
      });
      tabs.hidden = false;
      select(session.rails.length > 0 ? session.rails[0] : 'wallet');
    }

    var body = { amount: options.amount, currency: options.currency };
    if (options.reference) body.reference = options.reference;
    if (options.description) body.description = options.description;
    var country = options.customerCountry || detectCountry();
    if (country) body.customerCountry = country;
    if (!options.publishableKey) {
      setBusy('');
      error.textContent = 'Tapline.checkout needs a publishableKey';
    } else {
      api('POST', '/api/checkout/sessions', body, { authorization: 'Bearer ' + options.publishableKey })
        .then(function (answer) {
          if (closed) return;
          if (answer.status !== 201) {
            setBusy('');
            error.textContent = errorText(answer);
            return;
          }
          session = answer.data;
          host.setAttribute('data-session-id', session.id);
          render();
        })
        .catch(function () {
          setBusy('');
          error.textContent = 'Network error: the payment service cannot be reached.';
        });
    }
    return { close: close };
  }

  window.Tapline = Object.assign(window.Tapline || {}, { checkout: checkout, detectCountry: detectCountry, baseUrl: BASE_URL });
})();
