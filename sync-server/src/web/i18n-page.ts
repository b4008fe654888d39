/**
 * A customer page's language: chosen from `?lang=`, else the browser's Accept-Language, else
 * English; the switcher's links; and the part of the catalogue the page's script needs.
 */
import type { FastifyRequest } from 'fastify';
import { CATALOGUES, DEFAULT_LANGUAGE, LANGUAGES, LANGUAGE_NAMES, type Language, type MessageKey, type Translator, isLanguage, languageFromAcceptLanguage, translator } from '@tapline/shared/i18n';
import { type RawHtml, html, raw } from './html.ts';

export interface PageI18n {
  language: Language;
  t: Translator<MessageKey>;
  /** Links to this page in every language, the current one marked. */
  switcher: RawHtml;
  /** The JSON block browser/page-i18n.ts reads: the language and its web and error sentences. */
  scriptData: string;
}

export function requestedLanguage(request: FastifyRequest): Language | null {
  const { lang } = (request.query ?? {}) as { lang?: unknown };
  return isLanguage(lang) ? lang : null;
}

export function pageI18n(request: FastifyRequest): PageI18n {
  const language = requestedLanguage(request) ?? languageFromAcceptLanguage(request.headers['accept-language']) ?? DEFAULT_LANGUAGE;
  const t = translator(language);
  const url = new URL(request.url, 'http://page.invalid');
  const links = LANGUAGES.map((code) => {
    url.searchParams.set('lang', code);
    const current = code === language ? raw(' aria-current="true"') : '';
    return html`<a href="${url.pathname}${url.search}" hreflang="${code}" lang="${code}"${current}>${LANGUAGE_NAMES[code]}</a>`;
  });
  const { web, errors, common } = CATALOGUES[language];
  return {
    language,
    t,
    switcher: html`<nav class="languages" aria-label="${t.t('common.language')}">${links}</nav>`,
    // "<" escaped: the JSON sits inside a <script> element, where "</script>" would end it.
    scriptData: JSON.stringify({ language, messages: { web, errors, common } }).replace(/</g, '\\u003c'),
  };
}

/** Keeps a chosen ?lang= on a redirect to another page. */
export function withLanguage(location: string, language: Language | null): string {
  if (language === null) return location;
  return `${location}${location.includes('?') ? '&' : '?'}lang=${language}`;
}
