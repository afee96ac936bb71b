import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KEY_MAP, bindingOf, keyHelpRows, keyLabel, restartHint, type KeyAction } from '../../../src/events/index.js';
import { HELP_LINES, footerLine } from '../../../src/tui/format-chrome.js';
import { plainText } from '../../../src/tui/styled-text.js';
import { initialState, reduce } from '../../../src/tui/index.js';
import { decideUrlChangeMode } from '../../../src/daemon/url-change-mode.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** docs/cli.md's key table, as the key map makes it. */
function keyTable(): string {
  const lines = ['| key | does |', '| --- | --- |'];
  for (const row of keyHelpRows()) {
    const keys = row.keys.map((key) => `\`${key === '|' ? '\\|' : key}\``).join(' ');
    lines.push(`| ${keys} | ${[row.help, ...row.more].join(' ')} |`);
  }
  return lines.join('\n');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function stateWithCalls() {
  const state = initialState({ width: 100, height: 30, isDemo: false });
  const records = [makeRecord({ id: 'rec_A', toolCallId: 'call_A', tool: 'lookup_order', risk: 'low' })];
  return reduce(state, { type: 'snapshot', snapshot: makeSnapshot(records) }).state;
}

describe('the one key map', () => {
  it('gives every key one action', () => {
    const keys = KEY_MAP.flatMap((binding) => binding.keys);
    expect(keys.length).toBe(new Set(keys).size);
  });

  it('is what docs/cli.md lists, row for row', () => {
    expect(read('docs/cli.md')).toContain(keyTable());
  });

  it('is what ? shows, row for row', () => {
    const rows = keyHelpRows();
    const firstLines = HELP_LINES.filter((line) => !line.startsWith(' '));
    expect(firstLines.length).toBe(rows.length);
    rows.forEach((row, index) => expect(firstLines[index]).toContain(row.help));
    for (const row of rows) for (const key of row.keys) expect(HELP_LINES.join('\n')).toContain(key);
  });

  it('gives the footer its keys', () => {
    const footer = plainText(footerLine(stateWithCalls()));
    for (const binding of KEY_MAP) {
      if (binding.footer === undefined || binding.isDemoOnly || binding.action === 'back') continue;
      expect(footer).toContain(binding.footer);
    }
    expect(footer).toContain(`${keyLabel('restart-dev-server')} restart`);
    expect(footer).toContain(`${keyLabel('replay')} replay`);
  });

  it('R restarts the dev server, as the messages say, and sends no call', async () => {
    const decision = await decideUrlChangeMode({ policy: 'never', command: ['node', 'server.js'], cwd: ROOT, envFile: null });
    expect(decision.note).toContain(`(${restartHint()})`);
    expect(restartHint().startsWith('R ')).toBe(true);
    const { effects } = reduce(stateWithCalls(), { type: 'key', key: 'R' });
    expect(effects).toEqual([{ type: 'send', command: { command: 'restart-child' } }]);
  });

  it("keeps a held call's approve and deny keys off Shift of another action's key", () => {
    const actionOf = new Map(KEY_MAP.flatMap((binding) => binding.keys.map((key) => [key, binding.action] as const)));
    for (const action of ['approve-held', 'deny-held'] as const) {
      for (const key of bindingOf(action).keys.filter((k) => k.length === 1)) {
        for (const variant of new Set([key.toLowerCase(), key.toUpperCase()])) {
          if (variant !== key) expect(actionOf.get(variant), `${action} ${key}: ${variant}`).toBeUndefined();
        }
      }
    }
  });

  it('never lets a key a message names send a call', () => {
    const named: KeyAction[] = ['restart-dev-server', 'sync', 'hostname-change', 'help', 'quit', 'filter'];
    const callKeys = new Set(KEY_MAP.filter((binding) => binding.isCallSender).flatMap((binding) => binding.keys));
    for (const action of named) expect(callKeys.has(keyLabel(action))).toBe(false);
  });

  it('is the only place in src/ that names a key in a message', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const path = relative(ROOT, file);
      if (path === 'src/events/key-map.ts' || path.startsWith('src/inspector/')) continue;
      for (const [index, line] of read(path).split('\n').entries()) {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
        const literals = [...line.matchAll(/(['"`])((?:\\.|(?!\1).)*)\1/g)].map((match) => match[2] ?? '');
        if (literals.some((text) => /\((?:[A-Z?/]|Ctrl-[A-Z])\)|\bpress [A-Za-z?/](?![\w-])/.test(text))) offenders.push(`${path}:${index + 1}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it.each<[string, string, KeyAction]>([
    ['README.md', '`%` replays the selected call', 'replay'],
    ['README.md', '`%` shows every key', 'help'],
    ['README.md', 'Press `%` in the demo', 'hostname-change'],
    ['docs/cli.md', '`%` or `median-dev restart` gives it the new one', 'restart-dev-server'],
  ])('%s says "%s" with the key map\'s key', (doc, phrase, action) => {
    expect(read(doc)).toContain(phrase.replace('%', keyLabel(action)));
  });
});
