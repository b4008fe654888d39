// The first-start page of the kiosk app (dist/provision/index.html, loaded from the app's files
// before any server is known): asks for the sync server's address and hands it to the main
// process through the preload (window.taplineKiosk.provisioning), which checks and saves it.
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
const submit = element<HTMLButtonElement>('provision-submit');
const anyway = element<HTMLButtonElement>('provision-anyway');
const message = element<HTMLParagraphElement>('provision-message');

document.documentElement.lang = language;
document.title = t('provisioning.documentTitle');
element('title').textContent = t('provisioning.title');
element('intro').textContent = t('provisioning.intro');
element('url-label').textContent = t('provisioning.urlLabel');
submit.textContent = t('provisioning.submit');
anyway.textContent = t('provisioning.saveAnyway');

const api = (window as unknown as Record<string, KioskApi | undefined>)[KIOSK_API_GLOBAL];

function show(state: 'idle' | 'checking' | 'error' | 'saved', text: string): void {
  main.dataset.state = state;
  message.textContent = text;
  submit.disabled = state === 'checking' || state === 'saved';
  input.disabled = state === 'saved';
}

async function save(force: boolean): Promise<void> {
  if (api === undefined) return;
  anyway.hidden = true;
  show('checking', t('provisioning.checking'));
  let answer: ProvisioningAnswer;
  try {
    answer = await api.provisioning.save(input.value, { force });
  } catch {
    answer = { ok: false, code: 'forbidden', message: '' };
  }
  if (answer.ok) {
    input.value = answer.syncServerUrl;
    show('saved', t('provisioning.saved'));
    return;
  }
  main.dataset.code = answer.code;
  show('error', t(`provisioning.errors.${answer.code}`));
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
