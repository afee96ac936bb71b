/** A cut body ending in this many characters of a secret (or more) has that tail masked. */
const MIN_CUT_TAIL = 4;
const KEY_PREFIX = 'median_key_';
/** A Median key cut short at a body's end: `median_key_` and what came of the rest. */
const CUT_KEY_SHAPE = /median_key_[A-Za-z0-9]*$/;

/**
 * A body cut at the recording limit may end in the first part of a secret
 * (the rest was past the limit): a tail of `text` that is the start of a
 * spelling (MIN_CUT_TAIL characters or more), or of a Median key, becomes
 * `****` (or `median_key_****`): nothing of the secret stays, not even its
 * last four characters, which the cut text never held.
 */
export function maskCutTail(text: string, forms: readonly string[]): string {
  let longest = 0;
  let by = '****';
  const key = CUT_KEY_SHAPE.exec(text);
  if (key) [longest, by] = [key[0].length, `${KEY_PREFIX}****`];
  const prefixForms = [...forms, KEY_PREFIX];
  for (const form of prefixForms) {
    for (let size = Math.min(form.length - 1, text.length); size >= MIN_CUT_TAIL && size > longest; size--) {
      if (text.endsWith(form.slice(0, size))) {
        [longest, by] = [size, form.startsWith(KEY_PREFIX) ? `${KEY_PREFIX}****` : '****'];
        break;
      }
    }
  }
  return longest === 0 ? text : text.slice(0, text.length - longest) + by;
}

