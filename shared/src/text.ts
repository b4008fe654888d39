/**
 * What makes a piece of text unfit to store: PostgreSQL refuses a NUL character in text and jsonb,
 * a UTF-16 surrogate without its pair cannot be encoded as UTF-8, and every stored field has a
 * length. Checked before anything reaches the database, so bad text is a clear refusal instead of
 * a failed statement.
 */
export type TextProblem = 'nul_character' | 'unpaired_surrogate' | 'too_long';

/** Lone surrogates: a high one not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` has a character PostgreSQL cannot store (NUL, an unpaired surrogate), and which. */
export function unstorableCharacter(text: string): Exclude<TextProblem, 'too_long'> | null {
  if (text.includes('\u0000')) return 'nul_character';
  if (UNPAIRED_SURROGATE.test(text)) return 'unpaired_surrogate';
  return null;
}

/** The first problem of `text`, or null when it can be stored. `maxLength` counts UTF-16 code units. */
export function textProblem(text: string, maxLength: number): TextProblem | null {
  return unstorableCharacter(text) ?? (text.length > maxLength ? 'too_long' : null);
}

/** A sentence for a field's text problem, as error messages and decline reasons say it. */
export function textProblemMessage(field: string, problem: TextProblem, maxLength: number): string {
  switch (problem) {
    case 'nul_character':
      return `${field} must not contain a NUL character`;
    case 'unpaired_surrogate':
      return `${field} must be valid Unicode text (it has an unpaired UTF-16 surrogate)`;
    case 'too_long':
      return `${field} must be at most ${maxLength} characters`;
  }
}

/**
 * The text with what cannot be stored replaced (NUL and unpaired surrogates become U+FFFD) and cut
 * to `maxLength`: for keeping a record of a document that is declined because of its text.
 */
export function storableText(text: string, maxLength: number): string {
  return text.replaceAll('\u0000', '\uFFFD').replace(new RegExp(UNPAIRED_SURROGATE.source, 'g'), '\uFFFD').slice(0, maxLength).replace(/[\uD800-\uDBFF]$/, '');
}
