/**
 * Who decides a held call when `emulate approve|deny` is given no `--as`
 * (the call's `approvedBy`). Printed approve commands spell it out, quoted,
 * so they paste as they are and show where a name goes.
 */
export const DEFAULT_TEAMMATE = 'A teammate';
