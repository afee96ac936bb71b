import { readEnvFile } from '../../config/env-file-reader.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { runDoctorChecks } from '../doctor-checks.js';
import { checkTunnelProvider } from '../doctor-provider-check.js';
import { toolUseDoctorChecks } from '../tool-use-report.js';
import { loadConfig } from '../load-config.js';
import { QuietFailure } from '../quiet-failure.js';
import { createStyle } from '../terminal-style.js';
import { pastableText } from '../command-line.js';

export async function runDoctor(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const fileVars = config.envFile ? await readEnvFile(config.envFile).catch(() => ({}) as Record<string, string>) : {};
  // The five checks of "The agent does not use a tool", for every tool the route serves (why-command's module).
  const checks = [
    ...(await runDoctorChecks(config, fileVars.MEDIAN_TOOLS_URL)),
    await checkTunnelProvider(config, io.env),
    ...(await toolUseDoctorChecks(config).catch(() => [])),
  ].map((c) => ({ ...c, message: pastableText(c.message, io, config), ...(c.fix ? { fix: pastableText(c.fix, io, config) } : {}) }));
  const failed = checks.filter((c) => c.status === 'fail').length;
  if (config.json) {
    writeJson(io, { ok: failed === 0, checks });
  } else {
    const style = createStyle(useColor(io));
    for (const c of checks) {
      const mark = c.status === 'ok' ? style.green('✓') : c.status === 'warn' ? style.yellow('!') : style.red('✗');
      writeLine(io.stdout, `${mark} ${style.dim(c.check.padEnd(16))}${c.message}`);
      if (c.fix && c.status !== 'ok') writeLine(io.stdout, `  ${' '.repeat(16)}→ ${c.fix}`);
    }
    writeLine(io.stdout, '');
    writeLine(io.stdout, failed === 0 ? style.green('No problems that stop Median from reaching your tools.') : style.red(`${failed} problem${failed === 1 ? '' : 's'} to fix.`));
  }
  if (failed > 0) throw new QuietFailure(1);
}
