/**
 * BENCHMARKS.md is shared: a preamble (title, "How to run: npm run bench"),
 * then `## ` sections, each owned by one benchmark. This rewrites one section
 * (found by its heading) and leaves every other byte alone.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../src/shared/index.js';

const PREAMBLE = '# Benchmarks\n\nHow to run: `npm run bench` (builds, then runs `node dist/bench/run.js`).\n';
const HOW_TO_RUN = /^How to run: .*npm run bench/m;

/** `text` with the section under `heading` (a `## ` line) replaced by `body`, or added at the end. */
export function replaceSection(text: string, heading: string, body: string): string {
  const section = `${heading}\n\n${body.trim()}\n`;
  let doc = text.trim() === '' ? PREAMBLE : text;
  if (!HOW_TO_RUN.test(doc)) {
    // Keep the run instruction right under the title (or at the top when there is none).
    const title = /^# .*\n/m.exec(doc);
    doc = title ? `${doc.slice(0, title.index + title[0].length)}\nHow to run: \`npm run bench\`.\n${doc.slice(title.index + title[0].length)}` : `${PREAMBLE}\n${doc}`;
  }
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.trimEnd() === heading);
  if (start === -1) return `${doc.trimEnd()}\n\n${section}`;
  let end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  if (end === -1) end = lines.length;
  const before = lines.slice(0, start).join('\n').trimEnd();
  const after = lines.slice(end).join('\n').trim();
  return `${before}\n\n${section}${after ? `\n${after}\n` : ''}`;
}

export async function writeSection(path: string, heading: string, body: string): Promise<void> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A document of the repo, not a private file: readable by all, as it was.
  await writeFileAtomic(path, replaceSection(text, heading, body), { mode: 0o644, keepMode: true });
}
