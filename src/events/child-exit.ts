/** How the dev server ended, in the words every screen uses: `code 1`, `signal SIGKILL`. */
export function childExitText(exit: { code?: number | null; signal?: string | null }): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code ?? '?'}`;
}
