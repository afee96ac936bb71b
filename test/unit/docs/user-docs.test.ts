import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../../src/cli/program.js';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { PassThrough } from 'node:stream';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const USER_DOCS = ['README.md', 'SECURITY.md', 'BENCHMARKS.md', 'docs/cli.md', 'docs/recordings.md', 'docs/saved-calls.md', 'docs/frameworks.md', 'examples/frameworks/README.md'];

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Files git ignores: a user cloning the repository does not have them. */
function isIgnored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', path], { cwd: ROOT });
    return true;
  } catch {
    return false; // exit 1: not ignored (or no git: nothing to say)
  }
}

function io(): CliIo {
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: {},
    cwd: ROOT,
    isTTY: false,
    isInteractive: false,
    onSignal: () => () => undefined,
    pid: process.pid,
    exit: () => undefined as never,
  };
}

function commandsOf(command: Command, prefix = ''): Array<{ name: string; command: Command }> {
  return command.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return [{ name, command: sub }, ...commandsOf(sub, `${name} `)];
  });
}

describe('the user-facing docs stand on their own in a clone', () => {
  it.each(USER_DOCS)('%s links only to files inside the repository that git keeps', (doc) => {
    const text = read(doc);
    const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      const target = resolve(dirname(join(ROOT, doc)), link);
      expect(target.startsWith(ROOT), `${doc} → ${link}`).toBe(true);
      expect(existsSync(target), `${doc} → ${link}`).toBe(true);
      expect(isIgnored(target), `${doc} → ${link} is git-ignored`).toBe(false);
    }
  });

  it.each(USER_DOCS)('%s names no file outside the repository, no internal issue and no ignored results', (doc) => {
    const text = read(doc);
    expect(text).not.toMatch(/\.\.\/shared|SPEC(\.md| §)/);
    expect(text).not.toMatch(/\bissues? \d+/i);
    expect(text).not.toContain('.results/');
  });

  it('the README links the command and recording references', () => {
    const readme = read('README.md');
    expect(readme).toContain('](docs/cli.md)');
    expect(readme).toContain('](docs/recordings.md)');
  });

  it('ships the LICENSE that package.json names', () => {
    const license = (JSON.parse(read('package.json')) as { license: string }).license;
    expect(license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n/);
  });

  it('docs/cli.md documents every command and every flag --help shows', () => {
    const cli = read('docs/cli.md');
    const program = createProgram(io());
    for (const { name, command } of commandsOf(program)) {
      expect(cli, `command ${name}`).toContain(`median-dev ${name}`);
      for (const option of command.options) {
        const flag = option.long ?? option.short;
        expect(cli, `${name} ${flag}`).toMatch(new RegExp(`[\`\\s]${flag}(?![\\w-])`));
      }
    }
  });

  it('docs/recordings.md documents every field of a record', () => {
    const doc = read('docs/recordings.md');
    for (const field of ['id', 'toolCallId', 'tool', 'conversationId', 'risk', 'kind', 'receivedAt', 'durationMs', 'request', 'response', 'signature', 'verdict', 'replayOf', 'error', 'lateAnswer']) {
      expect(doc).toContain(`| \`${field}\` |`);
    }
  });
});
