import { INVISIBLE_CLASS, JOINER_AFTER_ASCII } from './invisible-characters.js';
import { mapStrings } from './map-strings.js';
import { stringifySafely } from './safe-json.js';

/**
 * The one output sanitiser: text that came from outside (a request through
 * the public tunnel URL, a route's answer, a dev server's output, a record
 * read from disk) is made safe to print on a terminal.
 *
 * Control characters are escaped as `\u001b`-style text, never dropped, so
 * what was sent stays readable: C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F:
 * U+009B alone starts a CSI sequence on some terminals), and the Unicode
 * characters that reorder or hide text (bidi marks, embeddings, overrides and
 * isolates, line and paragraph separators, zero-width and other invisible
 * characters, tag characters: invisible-characters.ts). `\n` and `\t` are kept where they
 * are layout (`safeText`), escaped where a value must stay on its line
 * (`safeLine`). JSON output stays exact JSON (`safeJson`): the escapes are
 * JSON's own, so a parser reads back the same value.
 */

/** Bidi, invisible and separator characters (see invisible-characters.ts), after the controls in a class. */
const HIDING = `\\u2028\\u2029${INVISIBLE_CLASS}`;
/** Every character that is escaped, `\n` and `\t` included. */
const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${HIDING}]|${JOINER_AFTER_ASCII}`, 'gu');
/** Every one but `\n`, `\t` and the `\r` of a `\r\n` line end. */
const CONTROL_BUT_LAYOUT = new RegExp(`\\r(?!\\n)|[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${HIDING}]|${JOINER_AFTER_ASCII}`, 'gu');
/** What JSON.stringify leaves raw that a terminal could act on (it escapes U+0000–U+001F itself). */
const JSON_RAW_CONTROL = new RegExp(`[\\u007f-\\u009f${HIDING}]|${JOINER_AFTER_ASCII}`, 'gu');
/** A character JSON_RAW_CONTROL may match begins there: everything from U+007F on (a plain test, far cheaper than the `u` pattern). */
const PAST_ASCII = /[^\u0000-\u007e]/;
const UNSAFE_CLASS = `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u200d\\ufe00-\\ufe0f${HIDING}]`;
/** One character a terminal acts on or that hides text (joiners and variation selectors too), but `\t` and `\n`: a test. */
export const TERMINAL_UNSAFE_CHAR = new RegExp(UNSAFE_CLASS, 'u');
/** Every bidi, invisible and separator character (joiners and variation selectors after ASCII), to replace: the TUI draws each as U+FFFD. */
export const HIDING_CHARS = new RegExp(`[${HIDING}]|${JOINER_AFTER_ASCII}`, 'gu');
/**
 * The SGR sequences median-dev's own colours write (`createStyle`): bold, dim,
 * their reset, red, green, yellow, magenta, cyan, default colour, full reset.
 */
const OWN_STYLE = /\u001b\[(?:0|1|2|22|31|32|33|35|36|39)?m/y;

/** `\u001b`: how a control character is shown (also a valid JSON escape); one past U+FFFF as its two UTF-16 halves, as JSON writes it. */
export function escapeControl(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** Text safe for a terminal, keeping `\n`, `\t` and `\r\n` (a body, a message over several lines). */
export function safeText(text: string): string {
  return text.replace(CONTROL_BUT_LAYOUT, escapeControl);
}

/** Text that stays on its line: `\n`, `\t` and `\r` escaped too (a tool name, a table cell, a log line's field). */
export function safeLine(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

/**
 * JSON text like `JSON.stringify(value, null, space)`, with every character a
 * terminal could act on written as a JSON escape. `JSON.parse` of it gives the
 * same value as `JSON.parse(JSON.stringify(value))`.
 */
export function safeJson(value: unknown, space?: number): string {
  return escapeJsonControls(stringifySafely(value, space));
}

/** JSON text (from JSON.stringify) with the characters it leaves raw that a terminal acts on written as JSON escapes. */
export function escapeJsonControls(json: string): string {
  // JSON's structural text is ASCII: these characters can only be inside strings. Most records are ASCII throughout.
  return PAST_ASCII.test(json) ? json.replace(JSON_RAW_CONTROL, escapeControl) : json;
}

/**
 * The last guard before a byte reaches stdout or stderr: every control
 * character but `\n` and `\t` is escaped, and with `allowStyles` the colour
 * sequences median-dev writes itself pass (and only those: no cursor
 * movement, screen clearing, title change or hidden text).
 */
export function safeTerminalOutput(text: string, options: { allowStyles: boolean }): string {
  if (!options.allowStyles) return safeText(text);
  let out = '';
  let from = 0;
  // Stryker disable next-line StringLiteral: starting the search at 0 instead of the first ESC only tries OWN_STYLE where no ESC is, which never matches.
  for (let at = text.indexOf('\u001b'); at !== -1; at = text.indexOf('\u001b', at + 1)) {
    OWN_STYLE.lastIndex = at;
    const style = OWN_STYLE.exec(text);
    if (!style) continue;
    out += safeText(text.slice(from, at)) + style[0];
    from = at + style[0].length;
    at = from - 1;
  }
  return out + safeText(text.slice(from));
}

/**
 * A copy of a JSON-like value (a record, an event) with every string passed
 * through `clean` (default `safeLine`), ready to be formatted for a terminal.
 */
export function safeStrings<T>(value: T, clean: (text: string) => string = safeLine): T {
  return mapStrings(value, clean);
}
