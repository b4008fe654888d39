// No words of the UI outside the message catalogues (shared/src/i18n/messages): the kiosk's
// Svelte screens, the customer pages' server-rendered HTML and their browser scripts are parsed,
// and every piece of literal text people would read fails the test.
//
// What counts as UI text, and what may stay literal (the allow-list):
// 1. Svelte templates: a text node, or a string in a rendered position of a {expression} (the
//    expression itself, either branch of `? :`, `&&` / `||` / `??` operands, `+` operands, the
//    text of a template literal), fails when it holds a letter. Strings compared (`=== 'qr'`),
//    indexed, or passed to a function (t('kiosk.sale.charge'), .slice(0, 10)) are not rendered.
// 2. The same goes for the people-facing attributes placeholder, title, alt, aria-label,
//    aria-description and label (on elements and components).
// 3. Text without letters (digits, punctuation, symbols: "·", "…", "(", "⌫") is not words.
// 4. A format sample in an attribute stays: one token without spaces holding a digit, a "." or
//    "…" ("TG1A2B3C4D", "term.…", "TLQ1.…"): it shows the shape to type, in every language.
// 5. Names that read the same in every language: NAMES below (the brand, standards).
// 6. Scripts (Svelte <script>, the pages' .js, the server's routes): a string that reads as a
//    sentence (two words of two letters or more) fails, unless it is an API error (ApiError and
//    its helpers: the API's own words, not a page's), a log line, an HTTP header value
//    ("Bearer …"), or an import. In the pages' scripts, any string with a letter assigned to
//    textContent, innerText, placeholder, title or alt fails as well.
// 7. Not covered: the status bar's technical detail tooltips (for support), and server words
//    passed through (an API error's text for a code the catalogue does not know). The checkout
//    drop-in (web/src/sdk/service.ts) is checked as a page script: its words come from the
//    catalogues too (web/src/sdk/word-keys.ts).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { parse } from 'svelte/compiler';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RENDERER = join(ROOT, 'terminal/src/renderer');
const WEB = join(ROOT, 'sync-server/src/web');
const DASHBOARD = join(ROOT, 'dashboard/src/app');
const PAGE_SCRIPTS = [...['pos', 'pay', 'offline-qr'].map((name) => join(ROOT, 'web/src/pages', `${name}.ts`)), ...['api', 'dom', 'page-i18n'].map((name) => join(ROOT, 'web/src/lib', `${name}.ts`)), join(ROOT, 'web/src/sdk/service.ts')];
const SERVER_PAGES = [join(WEB, 'routes.ts'), join(WEB, 'html.ts'), join(WEB, 'i18n-page.ts')];

const PEOPLE_ATTRIBUTES = new Set(['placeholder', 'title', 'alt', 'aria-label', 'aria-description', 'label']);
const NAMES = new Set(['Tapline', 'NFC', 'QR', 'PIN', 'PC/SC']);
const LETTER = /\p{L}/u;
const SENTENCE = /\p{L}{2,}[\s\u00a0]+\p{L}{2,}/u;

function isWords(text: string): boolean {
  let rest = text;
  for (const name of NAMES) rest = rest.split(name).join('');
  return LETTER.test(rest);
}

function isSample(text: string): boolean {
  return /^[\p{L}\p{N}._…-]+$/u.test(text) && /[\d.…]/.test(text);
}

function svelteFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return svelteFiles(path);
    return entry.name.endsWith('.svelte') ? [path] : [];
  });
}

// ---------------------------------------------------------------- Svelte templates (ESTree)

interface EsNode {
  type: string;
  start?: number;
  [key: string]: unknown;
}

/** The strings of an expression that end up on screen as they are. */
function renderedStrings(node: EsNode | null | undefined): string[] {
  if (node === null || node === undefined) return [];
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string' ? [node.value] : [];
    case 'TemplateLiteral':
      return [
        ...(node.quasis as Array<{ value: { cooked: string } }>).map((quasi) => quasi.value.cooked),
        ...(node.expressions as EsNode[]).flatMap(renderedStrings),
      ];
    case 'ConditionalExpression':
      return [...renderedStrings(node.consequent as EsNode), ...renderedStrings(node.alternate as EsNode)];
    case 'LogicalExpression':
      return [...renderedStrings(node.left as EsNode), ...renderedStrings(node.right as EsNode)];
    case 'BinaryExpression':
      return node.operator === '+' ? [...renderedStrings(node.left as EsNode), ...renderedStrings(node.right as EsNode)] : [];
    case 'TSAsExpression':
    case 'TSNonNullExpression':
    case 'ChainExpression':
      return renderedStrings(node.expression as EsNode);
    default:
      return [];
  }
}

function lineOf(source: string, offset: number | undefined): number {
  return offset === undefined ? 0 : source.slice(0, offset).split('\n').length;
}

/** Text nodes and rendered strings with words, in a Svelte component's template and script. */
function templateProblems(file: string, source: string = readFileSync(file, 'utf8')): string[] {
  const ast = parse(source, { modern: true }) as unknown as { fragment: EsNode; instance: { content: EsNode; start: number; end: number } | null };
  const problems: string[] = [];
  const report = (node: EsNode, text: string) => problems.push(`${file.slice(ROOT.length)}:${lineOf(source, node.start)} ${JSON.stringify(text.trim())}`);

  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const current = node as EsNode;
    switch (current.type) {
      case 'Text':
        if (isWords(current.data as string)) report(current, current.data as string);
        return;
      case 'ExpressionTag':
        for (const text of renderedStrings(current.expression as EsNode)) if (isWords(text)) report(current, text);
        return;
      case 'Attribute': {
        const name = current.name as string;
        if (!PEOPLE_ATTRIBUTES.has(name) || current.value === true) return;
        const parts = (Array.isArray(current.value) ? current.value : [current.value]) as EsNode[];
        for (const part of parts) {
          if (part.type === 'Text' && isWords(part.data as string) && !isSample((part.data as string).trim())) report(part, part.data as string);
          if (part.type === 'ExpressionTag') for (const text of renderedStrings(part.expression as EsNode)) if (isWords(text)) report(part, text);
        }
        return;
      }
      default:
        for (const [key, value] of Object.entries(current)) {
          // Expressions of blocks and directives decide, they do not render.
          if (['expression', 'test', 'context', 'key', 'index', 'metadata'].includes(key)) continue;
          visit(value);
        }
    }
  };
  visit(ast.fragment);
  if (ast.instance) problems.push(...scriptProblems(file, source.slice(ast.instance.start, ast.instance.end).replace(/^<script[^>]*>|<\/script>$/g, ''), lineOf(source, ast.instance.start) - 1, false));
  return problems;
}

// ---------------------------------------------------------------- scripts (TypeScript's parser)

const API_ERROR_CALLS = new Set(['ApiError', 'badRequest', 'unauthorized', 'forbidden', 'notFound', 'conflict', 'gone', 'unprocessable', 'Error']);
const TEXT_SINKS = new Set(['textContent', 'innerText', 'placeholder', 'title', 'alt']);

function calleeName(expression: ts.Expression): string {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return `${calleeName(expression.expression)}.${expression.name.text}`;
  return '';
}

/** Strings read as sentences (rule 6), and in page scripts any words written into the page. */
function scriptProblems(file: string, source: string, lineOffset: number, pageScript: boolean): string[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const problems: string[] = [];
  const report = (node: ts.Node, text: string) => problems.push(`${file.slice(ROOT.length)}:${lineOffset + sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${JSON.stringify(text)}`);

  const exempt = (node: ts.Node): boolean => {
    // 'use strict' and other directives.
    if (ts.isExpressionStatement(node.parent)) return true;
    for (let parent = node.parent; parent !== undefined; parent = parent.parent) {
      if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
      if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression) {
        const name = calleeName(parent.expression);
        if (API_ERROR_CALLS.has(name.split('.').pop() ?? '') || /(^|\.)(log|console)\./.test(`${name}.`) || name.startsWith('console.')) return true;
      }
    }
    return false;
  };
  const texts = (node: ts.Node): string[] => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
    if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
    return [];
  };

  const visit = (node: ts.Node): void => {
    // html`` templates are markup, checked as such by serverTemplateProblems.
    if (ts.isTaggedTemplateExpression(node) && calleeName(node.tag) === 'html') {
      if (ts.isTemplateExpression(node.template)) node.template.templateSpans.forEach((span) => visit(span.expression));
      return;
    }
    for (const text of texts(node)) {
      if (/<\/?[a-z!]/i.test(text)) {
        // Markup in a plain string: its text between tags.
        for (const piece of text.replace(/<[^>]*(>|$)/g, '\u0000').split('\u0000')) if (isWords(piece) && SENTENCE.test(piece)) report(node, piece.trim());
      } else if (SENTENCE.test(text) && !/^Bearer /.test(text) && !exempt(node)) report(node, text);
    }
    if (pageScript && ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && TEXT_SINKS.has(node.left.name.text)) {
      const value = node.right;
      const literal = ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value) ? [value.text] : ts.isTemplateExpression(value) ? texts(value) : [];
      for (const text of literal) if (isWords(text)) report(node, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return problems;
}

// ---------------------------------------------------------------- server-rendered HTML

/** The html`` templates of a server module, their static text outside tags and in people-facing attributes. */
function serverTemplateProblems(file: string, source: string = readFileSync(file, 'utf8')): string[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const problems: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node) && calleeName(node.tag) === 'html') {
      const template = node.template;
      const parts = ts.isNoSubstitutionTemplateLiteral(template) ? [template.text] : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)];
      // Each ${} becomes a marker, so text split around values is still seen as one.
      const markup = parts.join('\u0000');
      const line = sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      for (const match of markup.matchAll(/\s(placeholder|alt|title|aria-label|aria-description|label)="([^"]*)"/g)) {
        const value = (match[2] ?? '').split('\u0000').join('').trim();
        if (isWords(value) && !isSample(value)) problems.push(`${file.slice(ROOT.length)}:${line} ${match[1]}=${JSON.stringify(value)}`);
      }
      for (const text of markup.replace(/<[^>]*>/g, '\u0000').split('\u0000')) {
        if (isWords(text)) problems.push(`${file.slice(ROOT.length)}:${line} ${JSON.stringify(text.trim())}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return [...problems, ...scriptProblems(file, source, 0, false)];
}

describe('no UI words outside the message catalogues', () => {
  it('finds none in the kiosk\'s Svelte screens', () => {
    const files = svelteFiles(RENDERER);
    assert.ok(files.length >= 15, `${files.length} .svelte files`);
    assert.deepEqual(files.flatMap((file) => templateProblems(file)), []);
  });

  it('finds none in the merchant dashboard\'s Svelte pages', () => {
    const files = svelteFiles(DASHBOARD);
    assert.ok(files.length >= 10, `${files.length} .svelte files`);
    assert.deepEqual(files.flatMap((file) => templateProblems(file)), []);
  });

  it('finds none in the customer pages\' HTML and scripts', () => {
    assert.deepEqual(SERVER_PAGES.flatMap((file) => serverTemplateProblems(file)), []);
    assert.deepEqual(
      PAGE_SCRIPTS.flatMap((file) => scriptProblems(file, readFileSync(file, 'utf8'), 0, true)),
      [],
    );
  });

  it('would catch words left in a template, an attribute, a script or a page', () => {
    // The checks themselves, on samples of what they must refuse and allow.
    const svelteSource = `<script lang="ts">\n  const TITLES = { paid: 'Payment received' };\n  const id = 'key-dot';\n</script>\n<h1>{busy ? 'Charging…' : t('kiosk.sale.charging')}</h1>\n<p>Expires in <span>{n}</span> s</p>\n<input placeholder="e.g. Jollof rice" />\n<input placeholder="TG1A2B3C4D" />\n<button aria-label={x ? 'Delete last digit' : '⌫'}>⌫</button>\n<p>{a === 'qr' ? '·' : '…'} (Tapline)</p>\n<Row title="Offline payments" />\n`;
    const problems = templateProblems(join(RENDERER, 'Sample.svelte'), svelteSource).map((problem) => problem.replace(/^\S+ /, ''));
    assert.deepEqual(problems.sort(), ['"Charging…"', '"Delete last digit"', '"Expires in"', '"Offline payments"', '"Payment received"', '"e.g. Jollof rice"', '"s"'].sort());
    const script = scriptProblems('sample.js', "el.textContent = 'Paid';\nfetch(u, { headers: { authorization: `Bearer wallet.${x}` } });\nconst m = `${a} paid to ${b}.`;\nthrow new ApiError(400, 'code', 'An API sentence stays');\n", 0, true);
    assert.deepEqual(script.map((problem) => problem.replace(/^\S+ /, '')), ['"Paid"', '" paid to "']);
    const server = serverTemplateProblems(join(WEB, 'sample.ts'), 'const page = html`<h1>${t.t(\'web.pay.paid\')}</h1><p>Pay now</p><input placeholder="term.…" alt="A QR code">`;\n');
    assert.deepEqual(server.map((problem) => problem.replace(/^\S+ /, '')).sort(), ['"Pay now"', 'alt="A QR code"'].sort());
  });
});
