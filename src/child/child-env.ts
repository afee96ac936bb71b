/**
 * The child's environment: ours, then the env file's variables where ours has
 * none (dotenv's rule), then MEDIAN_TOOLS_URL, which always wins.
 */
export function buildChildEnv(
  base: Readonly<Record<string, string | undefined>>,
  fileVars: Readonly<Record<string, string>>,
  toolsUrl: string | undefined,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const [name, value] of Object.entries(fileVars)) if (env[name] === undefined) env[name] = value;
  Object.assign(env, overrides);
  if (toolsUrl !== undefined) env.MEDIAN_TOOLS_URL = toolsUrl;
  return env;
}

/** The daemon's environment without MEDIAN_TOOLS_URL (a shell's export would mask the env file too). */
export function withoutToolsUrl(base: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const env = { ...base };
  delete env.MEDIAN_TOOLS_URL;
  return env;
}
