// A reader for the YAML that Paystack's OpenAPI document is written in (no YAML package in the
// repository, and none is added): block mappings and sequences by indentation, plain, single- and
// double-quoted scalars (on one line or folded over several), block scalars (`|`, `|-`, `|+`, `>`)
// and the empty flow collections `{}` and `[]`. Anything else (anchors, tags, non-empty flow
// collections) is refused with its line number rather than misread. Scalars follow YAML 1.2's core
// schema: true/false, null/~, integers and floats; everything else is a string.

interface Line {
  indent: number;
  /** Without its indentation and trailing spaces. */
  text: string;
  /** Without its indentation only (block scalars keep trailing spaces). */
  full: string;
  number: number;
}

type Value = unknown;

class YamlError extends Error {
  constructor(message: string, line?: Line) {
    super(line ? `yaml line ${line.number}: ${message}` : `yaml: ${message}`);
  }
}

function scalar(text: string, line: Line): Value {
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (/^[{[&*!|>%@`]/.test(text)) throw new YamlError(`unsupported value ${JSON.stringify(text)}`, line);
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null' || text === '~') return null;
  if (/^[-+]?\d+$/.test(text)) return Number(text);
  if (/^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}

function unquoteDouble(body: string, line: Line): string {
  try {
    return JSON.parse(`"${body.replace(/\\\//g, '/').replace(/\t/g, '\\t')}"`) as string;
  } catch {
    throw new YamlError('unsupported escape in a double-quoted string', line);
  }
}

/** Strips a trailing ` # comment` from a plain scalar. */
function plain(text: string): string {
  const hash = text.search(/\s#/);
  return (hash === -1 ? text : text.slice(0, hash)).trim();
}

export function parseYaml(source: string): Value {
  const lines: Line[] = source.split(/\r?\n/).map((raw, index) => {
    if (/^\t| \t/.test(raw.match(/^\s*/)![0])) throw new YamlError('tab in indentation', { indent: 0, text: raw, full: raw, number: index + 1 });
    const text = raw.replace(/\s+$/, '');
    const indent = text.length - text.trimStart().length;
    return { indent, text: text.trimStart(), full: text === '' ? '' : raw.slice(indent), number: index + 1 };
  });
  let at = 0;
  const blank = (line: Line) => line.text === '' || line.text.startsWith('#');
  const skip = () => {
    while (at < lines.length && blank(lines[at]!)) at += 1;
  };

  /** A quoted scalar starting at `text` (the rest of `line`), possibly continued on the next lines. */
  function quoted(text: string, line: Line): Value {
    const quote = text[0]!;
    let body = text.slice(1);
    const closes = (value: string) => (quote === "'" ? /^(?:[^']|'')*'/.exec(value) : /^(?:[^"\\]|\\.)*"/.exec(value));
    let match = closes(body);
    while (!match) {
      at += 1;
      const next = lines[at];
      if (!next) throw new YamlError('unterminated quoted string', line);
      // Folding: a line break is a space, an empty line a newline.
      body = next.text === '' ? `${body}\n` : `${body.endsWith('\n') ? body : `${body} `}${next.text}`;
      match = closes(body);
    }
    const inner = match[0].slice(0, -1);
    if (body.slice(match[0].length).trim().replace(/^#.*/, '') !== '') throw new YamlError('text after a quoted string', line);
    at += 1;
    return quote === "'" ? inner.replace(/''/g, "'") : unquoteDouble(inner, line);
  }

  /** A plain scalar on `line`, folded with more-indented continuation lines. */
  function plainScalar(text: string, line: Line, parentIndent: number): Value {
    let value = plain(text);
    at += 1;
    const continued: string[] = [];
    while (at < lines.length) {
      const next = lines[at]!;
      if (next.text === '') {
        continued.push('\n');
        at += 1;
        continue;
      }
      if (next.indent <= parentIndent || next.text.startsWith('#')) break;
      if (/^(- |-$)/.test(next.text) || /^[^'"\s][^:]*:(\s|$)/.test(next.text)) throw new YamlError('ambiguous continuation line', next);
      continued.push(plain(next.text));
      at += 1;
    }
    while (continued.at(-1) === '\n') continued.pop();
    if (continued.length === 0) return scalar(value, line);
    for (const part of continued) value = part === '\n' ? `${value}\n` : value.endsWith('\n') ? `${value}${part}` : `${value} ${part}`;
    return value;
  }

  function blockScalar(header: string, line: Line, parentIndent: number): string {
    const match = /^([|>])([-+]?)$/.exec(header);
    if (!match) throw new YamlError(`unsupported block scalar header ${header}`, line);
    const [, style, chomp] = match;
    at += 1;
    const body: string[] = [];
    let indent: number | undefined;
    while (at < lines.length) {
      const next = lines[at]!;
      if (next.text === '') {
        body.push('');
        at += 1;
        continue;
      }
      if (next.indent <= parentIndent) break;
      indent ??= next.indent;
      if (next.indent < indent) break;
      body.push(' '.repeat(next.indent - indent) + next.full);
      at += 1;
    }
    let text: string;
    if (style === '|') text = body.join('\n');
    else {
      text = '';
      body.forEach((part, index) => {
        if (index === 0) text = part;
        else if (part === '' || part.startsWith(' ')) text += `\n${part}`;
        else text += text.endsWith('\n') || body[index - 1] === '' ? part : ` ${part}`;
      });
    }
    const content = text.replace(/\n+$/, '');
    if (chomp === '-') return content;
    if (chomp === '+') return `${text}\n`;
    return content === '' ? '' : `${content}\n`;
  }

  /** The value after `key:` or `- ` on `line`, whose block children are indented more than `parentIndent`. */
  function valueAfter(text: string, line: Line, parentIndent: number): Value {
    if (text === '') {
      at += 1;
      skip();
      const next = lines[at];
      if (!next || next.indent < parentIndent) return null;
      if (next.indent === parentIndent) return next.text === '-' || next.text.startsWith('- ') ? sequence(parentIndent) : null;
      return node(next.indent);
    }
    if (text[0] === "'" || text[0] === '"') return quoted(text, line);
    if (text[0] === '|' || text[0] === '>') return blockScalar(plain(text), line, parentIndent);
    return plainScalar(text, line, parentIndent);
  }

  function splitKey(text: string, line: Line): [string, string] | undefined {
    if (text[0] === "'" || text[0] === '"') {
      const match = text[0] === "'" ? /^'((?:[^']|'')*)'\s*:(?:\s+|$)/.exec(text) : /^"((?:[^"\\]|\\.)*)"\s*:(?:\s+|$)/.exec(text);
      if (!match) return undefined;
      const key = text[0] === "'" ? match[1]!.replace(/''/g, "'") : unquoteDouble(match[1]!, line);
      return [key, text.slice(match[0].length)];
    }
    const match = /^([^#]*?)\s*:(?:\s+|$)/.exec(text);
    if (!match || match[1] === '') return undefined;
    return [match[1]!, text.slice(match[0].length)];
  }

  function mapping(indent: number, first?: { text: string; line: Line }): Record<string, Value> {
    const result: Record<string, Value> = {};
    let pending = first;
    for (;;) {
      let text: string;
      let line: Line;
      if (pending) {
        ({ text, line } = pending);
        pending = undefined;
      } else {
        skip();
        const next = lines[at];
        if (!next || next.indent < indent) break;
        if (next.indent > indent) throw new YamlError('unexpected indentation', next);
        if (next.text === '-' || next.text.startsWith('- ')) break;
        text = next.text;
        line = next;
      }
      const split = splitKey(text, line);
      if (!split) throw new YamlError(`expected "key: value", found ${JSON.stringify(text)}`, line);
      const [key, rest] = split;
      if (Object.hasOwn(result, key)) throw new YamlError(`duplicate key ${key}`, line);
      result[key] = valueAfter(rest.trim(), line, indent);
    }
    return result;
  }

  function sequence(indent: number): Value[] {
    const result: Value[] = [];
    for (;;) {
      skip();
      const line = lines[at];
      if (!line || line.indent !== indent || !(line.text === '-' || line.text.startsWith('- '))) {
        if (line && line.indent > indent) throw new YamlError('unexpected indentation', line);
        break;
      }
      const rest = line.text.slice(1).trimStart();
      const inner = indent + (line.text.length - rest.length);
      if (rest === '') result.push(valueAfter('', line, indent + 1) ?? null);
      else if (rest === '-' || rest.startsWith('- ')) throw new YamlError('nested inline sequences are not supported', line);
      else if (rest[0] !== "'" && rest[0] !== '"' && rest[0] !== '|' && rest[0] !== '>' && splitKey(rest, line)) {
        // `- key: value` opens a mapping whose keys sit at the column of `key`.
        const item = mapping(inner, { text: rest, line });
        result.push(item);
      } else result.push(valueAfter(rest, line, indent));
    }
    return result;
  }

  function node(indent: number): Value {
    skip();
    const line = lines[at];
    if (!line) return null;
    if (line.text === '-' || line.text.startsWith('- ')) return sequence(indent);
    return mapping(indent);
  }

  skip();
  const root = node(lines[at]?.indent ?? 0);
  skip();
  if (at < lines.length) throw new YamlError('content after the document', lines[at]);
  return root;
}
