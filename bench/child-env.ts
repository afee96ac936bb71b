/** The environment for the CLI children: ours without any MEDIAN_* setting, plus what the scenario adds. */
export function benchChildEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('MEDIAN_')) env[name] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}
