/**
 * The docs' "Approval and run errors" the emulator answers with
 * (tool-errors.txt), word for word; code spans printed without backticks like
 * src/median/messages.ts does. src/median/messages.ts does not carry this
 * table, so the emulator keeps it here, in one place.
 */
export const RUN_MESSAGES = Object.freeze({
  /** No endpoint declares the tool. */
  notSwitchedOn: (tool: string): string => `${tool} is not one of your switched on tools.`,
  /** An endpoint declares it, but its switch is off (or its endpoint is not usable). */
  unavailableOrDisabled: (tool: string): string => `${tool} is unavailable or disabled. Check its settings in Agent > Tools.`,
});
