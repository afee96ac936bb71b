/**
 * Turns chunks of text into whole lines: a line may arrive in several chunks,
 * `\r\n` and `\n` both end one (a `\r\n` split across chunks too), and the
 * last line without a newline comes out on `flush()`. A line longer than
 * `maxLineChars` is passed on in pieces rather than held in memory.
 *
 * With `mask`, a long line is masked before it is cut, and cut only where
 * `holdChars` more characters are already in: a secret that straddles the
 * cut is then whole in what is masked, so neither piece shows part of it
 * (a piece may end or start inside a mask, never inside a secret).
 */
export interface LineSplitter {
  push(chunk: string): void;
  /** Emits the unfinished last line, if any. */
  flush(): void;
}

const CARRIAGE_RETURN = 13;

export function createLineSplitter(
  onLine: (line: string) => void,
  options: { maxLineChars?: number; mask?: (text: string) => string; holdChars?: number } = {},
): LineSplitter {
  const maxLineChars = options.maxLineChars ?? 64 * 1024;
  const { mask } = options;
  // Longer than any secret spelling (a key fully \u-escaped is six times its length).
  const holdChars = mask ? (options.holdChars ?? 4 * 1024) : 0;
  let pending = '';
  return {
    push(chunk) {
      pending += chunk;
      let start = 0;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const end = newline > start && pending.charCodeAt(newline - 1) === CARRIAGE_RETURN ? newline - 1 : newline;
        onLine(pending.slice(start, end));
        start = newline + 1;
        newline = pending.indexOf('\n', start);
      }
      pending = pending.slice(start);
      while (pending.length > maxLineChars + holdChars) {
        // Masking shortens the text: cut only if enough is still in past the cut.
        if (mask) pending = mask(pending);
        if (pending.length <= maxLineChars + holdChars) break;
        onLine(pending.slice(0, maxLineChars));
        pending = pending.slice(maxLineChars);
      }
    },
    flush() {
      if (pending === '') return;
      const line = pending.endsWith('\r') ? pending.slice(0, -1) : pending;
      pending = '';
      onLine(line);
    },
  };
}
