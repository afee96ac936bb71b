/**
 * What in a record's JSON text makes the masker look closer, found in one
 * scan: any character but printable ASCII (a raw invisible or non-ASCII
 * one; JSON writes controls as escapes), and a backslash before `u` (a JSON
 * escape of a control, or a body's own `\\u` escape text), `0` (octal escape
 * text) or `/` (a body's own `\\/`). A plain pattern: the `u` ones it spares
 * cost several times more over the ASCII text most records are.
 */
const NOT_PLAIN_JSON = /[^\u0020-\u007e]|\\[u0/]/;

/**
 * Whether JSON text is printable ASCII with no escape a hidden character or
 * a secret could be written in: nothing in it for the masker's closer looks
 * or for escapeJsonControls, and a byte per character.
 */
export function isPlainJson(json: string): boolean {
  return !NOT_PLAIN_JSON.test(json);
}
