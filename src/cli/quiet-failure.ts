/** A command that has already said what failed (a check, a verdict) and only sets the exit code. */
export class QuietFailure extends Error {
  readonly exitCode: 1 | 2;
  constructor(exitCode: 1 | 2 = 1) {
    super('The command reported a failure.');
    this.name = 'QuietFailure';
    this.exitCode = exitCode;
  }
}
