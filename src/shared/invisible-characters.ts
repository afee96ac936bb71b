/**
 * Characters that show nothing, or reorder what is around them: Unicode's
 * default-ignorable code points (zero-width space and joiners, word joiner,
 * invisible operators, the byte-order mark, soft hyphen, fillers, tag
 * characters), the bidi marks, embeddings, overrides and isolates (U+061C,
 * U+200E/F, U+202A–E, U+2066–9), and the interlinear annotation marks.
 * Printed raw, they hide text (a key split by U+200B looks whole) or make it
 * read in another order. As a regular-expression class body, for the `u` flag.
 *
 * U+200D (zero-width joiner) and the variation selectors U+FE00–FE0F build
 * emoji (👨‍👩‍👧, ❤️): they count as invisible only where they do not follow a
 * non-ASCII character (JOINER_AFTER_ASCII).
 */
export const INVISIBLE_CLASS =
  '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b\\u200c\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u206f' +
  '\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e0fff}';

/** A joiner or variation selector that follows an ASCII character, or nothing: it builds no emoji, it only hides. */
export const JOINER_AFTER_ASCII = '(?<![^\\u0000-\\u007f])[\\u200d\\ufe00-\\ufe0f]';

/** Controls and invisible characters as a class body; `\n`, `\t` and `\r` left out (layout). */
const HIDDEN_RAW_CLASS = `\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u200d\\ufe00-\\ufe0f${INVISIBLE_CLASS}`;
/** A character the sanitiser escapes (any control, `\n` and `\t` included, or an invisible one). */
const ESCAPED_CHAR = new RegExp(`^[\\u0000-\\u001f${HIDDEN_RAW_CLASS}]$`, 'u');
/**
 * A raw hidden character, or an escape text that may stand for one: `\u200b`
 * (a surrogate pair as two), or the `\0342\0200\0213` octal bytes of
 * `printf '%b'` that `show --curl` writes.
 */
const HIDDEN_OR_ESCAPE = new RegExp(
  `[${HIDDEN_RAW_CLASS}]|\\\\u[dD][89abAB][0-9a-fA-F]{2}\\\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\\\u[0-9a-fA-F]{4}|(?:\\\\0[0-7]{3})+`,
  'gu',
);
const EVERY_CHAR_ESCAPED = new RegExp(`^[\\u0000-\\u001f${HIDDEN_RAW_CLASS}]+$`, 'u');

/** Whether a match of HIDDEN_OR_ESCAPE hides text: a raw character does; an escape does if it spells such characters only. */
function isHidden(match: string): boolean {
  if (match.startsWith('\\0')) {
    const bytes = Uint8Array.from(match.slice(2).split('\\0'), (octal) => Number.parseInt(octal, 8) & 0xff);
    return EVERY_CHAR_ESCAPED.test(new TextDecoder().decode(bytes));
  }
  if (!match.startsWith('\\u')) return true;
  const units = match.slice(2).split('\\u').map((hex) => Number.parseInt(hex, 16));
  return ESCAPED_CHAR.test(String.fromCharCode(...units));
}

/**
 * Where HIDDEN_OR_ESCAPE may match: any character but printable ASCII and
 * layout, or the `\u` / `\0` that begin an escape text. A plain pattern,
 * far cheaper than the `u` one over the ASCII text most records are.
 */
const MAY_MATCH_HIDDEN = /[^\u0020-\u007e\t\n\r]|\\[u0]/;

/** Whether `text` holds a control or invisible character (but layout), raw or as its escape text. */
export function mayHideText(text: string): boolean {
  if (!MAY_MATCH_HIDDEN.test(text)) return false;
  HIDDEN_OR_ESCAPE.lastIndex = 0;
  for (let match = HIDDEN_OR_ESCAPE.exec(text); match !== null; match = HIDDEN_OR_ESCAPE.exec(text)) {
    if (isHidden(match[0])) return true;
  }
  return false;
}

/**
 * `text` with every control and invisible character taken out — raw, or
 * already escaped as `\u200b` text — except the line breaks and tabs that are
 * layout, and for each character kept, where it is in `text`: a secret split
 * by such characters is found whole in `plain`, and masked in `text` from
 * `at[i]` (its first character) to `at[j] + 1` (after its last).
 */
export function withoutHiddenCharacters(text: string): { plain: string; at: number[] } {
  let plain = '';
  const at: number[] = [];
  let from = 0;
  const keep = (to: number) => {
    plain += text.slice(from, to);
    for (let i = from; i < to; i++) at.push(i);
  };
  HIDDEN_OR_ESCAPE.lastIndex = 0;
  for (let match = HIDDEN_OR_ESCAPE.exec(text); match !== null; match = HIDDEN_OR_ESCAPE.exec(text)) {
    if (!isHidden(match[0])) continue;
    keep(match.index);
    from = match.index + match[0].length;
  }
  keep(text.length);
  return { plain, at };
}
