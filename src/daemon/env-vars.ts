/**
 * The env file's variables as the daemon last read or wrote them: the dev
 * server gets them (dotenv's rule, see child/child-env.ts). The key rotation
 * replaces them when it re-reads the file; the tools-URL writer notes the URL
 * it wrote.
 */
export interface EnvVars {
  get(): Readonly<Record<string, string>>;
  set(vars: Record<string, string>): void;
}

export function createEnvVars(initial: Record<string, string>): EnvVars {
  let vars: Readonly<Record<string, string>> = { ...initial };
  return {
    get: () => vars,
    set(next) {
      vars = { ...next };
    },
  };
}
