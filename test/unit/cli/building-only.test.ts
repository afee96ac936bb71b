import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../../src/cli/program.js';
import { runCliInProcess, silentIo as io } from '../../helpers/cli-harness.js';

/** A command and its subcommands as help shows them, all the way down. */
const helpOf = (command: Command): string[] => [command.helpInformation(), ...command.commands.flatMap(helpOf)];

describe('the command argv names is the only one built', () => {
  const full = createProgram(io());

  it('builds that command alone, with its subcommands and the same help as in the whole tree', () => {
    expect(full.commands.length).toBeGreaterThan(10);
    for (const command of full.commands) {
      const only = createProgram(io(), undefined, command.name());
      expect(only.commands.map((each) => each.name())).toEqual([command.name()]);
      expect(helpOf(only.commands[0]!)).toEqual(helpOf(command));
    }
  });

  it('builds the whole tree for a name no command has, so help and suggestions see every command', async () => {
    const typo = await runCliInProcess(['shwo', 'x']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('show');
    const help = await runCliInProcess(['help']);
    for (const command of full.commands) expect(help.stdout).toContain(command.name());
    expect((await runCliInProcess(['show', '--jsn', 'x'])).stderr).toContain('--json');
  });
});
