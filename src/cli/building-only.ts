import type { Command } from 'commander';

/**
 * `program` as createProgram sees it when argv names the command to run:
 * `.command(name)` builds that command (and its subcommands) on `program`,
 * and every other command's definition goes to a stub that takes the calls
 * and keeps nothing. Building a command parses each of its options' flags;
 * the whole tree cost every run ~5 ms of start-up, most of it for commands
 * that were not run. runCli builds the whole tree when the name is not among
 * the commands (help, a typo: commander's suggestions need every name).
 */
export function buildingOnly(program: Command, name: string): Command {
  const stub: Command = new Proxy(() => undefined, { get: () => () => stub }) as unknown as Command;
  return new Proxy(program, {
    get(target, key) {
      if (key === 'command') {
        return (nameAndArgs: string, ...rest: unknown[]) =>
          nameAndArgs.split(' ')[0] === name ? (target.command as (...args: unknown[]) => Command).call(target, nameAndArgs, ...rest) : stub;
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
