/** The end of a soak entry: main's number becomes the exit code, a throw exits 1 with its stack; the hard stop is cleared either way. */
export function settleMain(main: Promise<number>, options: { hardStop: NodeJS.Timeout; failed: string }): void {
  main.then(
    (code) => {
      clearTimeout(options.hardStop);
      process.exitCode = code;
    },
    (error: unknown) => {
      clearTimeout(options.hardStop);
      console.error(`${options.failed}:`, error instanceof Error ? (error.stack ?? error.message) : error);
      process.exitCode = 1;
    },
  );
}
