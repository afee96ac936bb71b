/**
 * The docs' Load errors (tool-errors.txt): what the route module throws when
 * it loads, and the docs' "Fix" column. A dev server prints the message (in a
 * stack trace, a framework's error overlay log, …); `findLoadError` picks it
 * out of one line of its output so median-dev can show it with its fix.
 */
const LOAD_FIXES: ReadonlyArray<{ pattern: RegExp; fix: string }> = [
  { pattern: /Median: the tool name "[^"]*" is invalid\./, fix: 'A letter, then letters, numbers and underscores, up to 64 characters.' },
  { pattern: /Median: the tool "[^"]*" has no description\./, fix: 'Add one sentence that says when to use it.' },
  { pattern: /Median: the tool "[^"]*" has risk "[^"]*"\./, fix: 'Fix the risk: “low”, “medium”, “reviewed” or “high”.' },
  { pattern: /Median: the field "[^"]*" on "[^"]*" was not built with the schema builder\./, fix: 'Use p.string(), p.number(), p.boolean() or p.enum().' },
  { pattern: /Median: the tool "[^"]*" has no execute function\./, fix: 'Add execute.' },
  { pattern: /Median: two plugins both define a tool called "[^"]*"\./, fix: 'Remove one plugin.' },
  { pattern: /Median: your tool "[^"]*" has the same name as one from the navigation plugin\./, fix: 'Rename your tool.' },
  { pattern: /Median: two tools are both called "[^"]*"\./, fix: 'Rename one of them.' },
];

export interface LoadError {
  /** Median's message, from "Median:" to the end of the line (stack frames and ANSI colours left out). */
  message: string;
  fix: string;
}

/** The load error a line of dev-server output reports, if it reports one. */
export function findLoadError(line: string): LoadError | undefined {
  // eslint-disable-next-line no-control-regex -- a terminal's colour codes are exactly what is stripped here
  const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
  for (const { pattern, fix } of LOAD_FIXES) {
    const found = pattern.exec(plain);
    if (found) return { message: plain.slice(found.index).trim(), fix };
  }
  return undefined;
}

/**
 * Lines a route logs when it loads that are no error but take a tool away:
 * on an edge runtime navigation() has no file system to read pages from
 * (tool-errors.txt, the last recipe), with the docs' fix.
 */
const LOAD_NOTICES: ReadonlyArray<{ pattern: RegExp; fix: string }> = [
  {
    pattern: /Median: navigation\(\) found no pages, so the agent has no way to move anybody\./,
    fix: 'The route serves no goToPage tool. Pass routes to navigation(), or run the route on Node 20.16 or later, or Bun.',
  },
];

/** The load notice a line of dev-server output carries, if it carries one. */
export function findLoadNotice(line: string): LoadError | undefined {
  // eslint-disable-next-line no-control-regex -- a terminal's colour codes are exactly what is stripped here
  const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
  for (const { pattern, fix } of LOAD_NOTICES) {
    const found = pattern.exec(plain);
    if (found) return { message: found[0], fix };
  }
  return undefined;
}
