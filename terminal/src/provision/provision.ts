// The first-start page of the kiosk app (dist/provision/index.html, loaded from the app's files
// before any server is known): asks for the sync server's address and the terminal's pairing
// code and hands them to the main process through the preload (window.taplineKiosk.provisioning),
// which checks the address, pairs with the code and saves the address.
// Its words come from the shared catalogues, in the machine's language.
import { DEFAULT_LANGUAGE, languageOf, translator } from '@tapline/shared/i18n';
import { KIOSK_API_GLOBAL, type KioskApi, type ProvisioningAnswer } from '../preload/api.ts';

const language = navigator.languages.map((tag) => languageOf(tag)).find((found) => found !== null) ?? DEFAULT_LANGUAGE;
const { t } = translator(language);

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the first-start page has no #${id}`);
  return found as T;
}

const main = element<HTMLElement>('provision');
const input = element<HTMLInputElement>('sync-server-url');
const codeInput = element<HTMLInputElement>('pairing-code');
const submit = element<HTMLButtonElement>('provision-submit');
const anyway = element<HTMLButtonElement>('provision-anyway');
const message = element<HTMLParagraphElement>('provision-message');

document.documentElement.lang = language;
document.title = t('provisioning.documentTitle');
element('title').textContent = t('provisioning.title');
element('intro').textContent = t('provisioning.intro');
element('url-label').textContent = t('provisioning.urlLabel');
element('code-label').textContent = t('provisioning.codeLabel');
submit.textContent = t('provisioning.submit');
anyway.textContent = t('provisioning.saveAnyway');

const api = (window as unknown as Record<string, KioskApi | undefined>)[KIOSK_API_GLOBAL];

function show(state: 'idle' | 'checking' | 'error' | 'saved', text: string): void {
  main.dataset.state = state;
  message.textContent = text;
  submit.disabled = state === 'checking' || state === 'saved';
  input.disabled = state === 'saved';
  codeInput.disabled = state === 'saved';
}

/** The sentence for a refusal: the pairing codes' are the till's own (kiosk.cashier.*). */
function refusal(answer: Extract<ProvisioningAnswer, { ok: false }>): string {
  switch (answer.code) {
    case 'invalid_url':
    case 'unreachable':
    case 'not_tapline':
    case 'forbidden':
    case 'pairing_failed':
      return t(`provisioning.errors.${answer.code}`);
    default:
      return t(`kiosk.cashier.${answer.code}`);
  }
}

async function save(force: boolean): Promise<void> {
  if (api === undefined) return;
  anyway.hidden = true;
  show('checking', t('provisioning.checking'));
  let answer: ProvisioningAnswer;
  try {
    answer = await api.provisioning.save(input.value, { pairingCode: codeInput.value, force });
  } catch {
    answer = { ok: false, code: 'forbidden', message: '' };
  }
  if (answer.ok) {
    input.value = answer.syncServerUrl;
    // The code is spent: nothing to read from it any more.
    codeInput.value = '';
    show('saved', answer.terminal === null ? t('provisioning.savedUnpaired') : t('provisioning.paired', { terminal: answer.terminal.name, merchant: answer.terminal.merchant }));
    return;
  }
  main.dataset.code = answer.code;
  show('error', refusal(answer));
  // The field at fault gets the focus (a barcode scanner types the code's QR into it).
  (answer.code.startsWith('pairing_code') ? codeInput : input).focus();
  // A server that is not up yet (a new shop) may still be the right one: the cashier may keep it.
  anyway.hidden = answer.code !== 'unreachable';
}

if (api === undefined) {
  show('error', t('provisioning.notInApp'));
  submit.disabled = true;
} else {
  api.provisioning.state().then(
    (state) => {
      if (state.syncServerUrl !== null && input.value === '') input.value = state.syncServerUrl;
    },
    () => undefined,
  );
  element<HTMLFormElement>('provision-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void save(false);
  });
  anyway.addEventListener('click', () => void save(true));
  input.focus();
}
