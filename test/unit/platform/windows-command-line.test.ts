import { describe, expect, it } from 'vitest';
import {
  isWindowsBatchCommand,
  quoteWindowsArgument,
  windowsCommandLine,
} from '../../../src/platform/index.js';

describe('windowsCommandLine', () => {
  it.each([
    ['plain words stay as they are', ['npm', 'run', 'dev'], 'npm run dev'],
    ['flags and ports', ['npm', 'run', 'dev', '--', '--port', '3000'], 'npm run dev -- --port 3000'],
    ['paths with slashes become backslashes', ['./node_modules/.bin/next', 'dev'], '.\\node_modules\\.bin\\next dev'],
    ['a space in the command name is escaped', ['C:\\Program Files\\nodejs\\node.exe', 'server.js'], 'C:\\Program^ Files\\nodejs\\node.exe server.js'],
    [
      'quotes and meta characters for an .exe (escaped once)',
      ['node', '-e', 'console.log("a & b")'],
      'node -e ^"console.log^(\\^"a^ ^&^ b\\^"^)^"',
    ],
    ['a batch shim escapes twice', ['npm', 'run', 'dev', '--', '--title', 'a&b'], 'npm run dev -- --title ^^^"a^^^&b^^^"'],
    ['an empty argument', ['node', 'server.js', ''], 'node server.js ^"^"'],
    ['percent signs are escaped', ['node', '%PATH%'], 'node ^"^%PATH^%^"'],
  ])('%s', (_label, command, expected) => {
    expect(windowsCommandLine(command)).toBe(expected);
  });

  it('throws on an empty command', () => {
    expect(() => windowsCommandLine([])).toThrow(TypeError);
  });
});

describe('quoteWindowsArgument', () => {
  it.each([
    ['plain', 'dev', 'dev'],
    ['trailing backslash inside quotes is doubled', 'C:\\my dir\\', '^"C:\\my^ dir\\\\^"'],
    ['backslashes before a quote are doubled', 'a\\"b', '^"a\\\\\\^"b^"'],
    ['backslashes elsewhere stay single', 'a\\b c', '^"a\\b^ c^"'],
    ['pipes and redirects', 'a|b>c', '^"a^|b^>c^"'],
  ])('%s', (_label, argument, expected) => {
    expect(quoteWindowsArgument(argument, { isBatchCommand: false })).toBe(expected);
  });
});

describe('isWindowsBatchCommand', () => {
  it.each([
    ['npm', true],
    ['NPX', true],
    ['pnpm', true],
    ['yarn', true],
    ['C:\\tools\\npm', true],
    ['dev.cmd', true],
    ['run.BAT', true],
    ['node', false],
    ['node.exe', false],
    ['next', false],
  ])('%s → %s', (name, expected) => {
    expect(isWindowsBatchCommand(name)).toBe(expected);
  });
});
