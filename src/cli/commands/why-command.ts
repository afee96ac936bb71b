import { safeLine, safeText } from '../../shared/output-sanitiser.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { QuietFailure } from '../quiet-failure.js';
import { createStyle } from '../terminal-style.js';
import { toolUseReport } from '../tool-use-report.js';

/** How each check reads as a line, in the docs' words ("The agent does not use a tool"). */
const TITLES = {
  synced: 'The endpoint synced',
  'switched-on': 'The tool is on',
  'conversation-after-deploy': 'The conversation started after your deploy',
  description: 'The description says when to use it',
  'calls-left': 'The turn had calls left',
} as const;

/** `median-dev why <tool>`: the docs' five checks for a tool the agent does not use. */
export async function runWhy(tool: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const checks = await toolUseReport(config, tool);
  const failed = checks.filter((c) => c.status === 'fail').length;
  if (config.json) {
    writeJson(io, { tool, ok: failed === 0, checks });
  } else {
    const style = createStyle(useColor(io));
    writeLine(io.stdout, style.bold(`Why the agent may not use ${safeLine(tool)}:`));
    for (const c of checks) {
      const mark = c.status === 'ok' ? style.green('✓') : c.status === 'warn' ? style.yellow('!') : style.red('✗');
      writeLine(io.stdout, `${mark} ${TITLES[c.check]}: ${safeText(c.message)}`);
      if (c.fix && c.status !== 'ok') writeLine(io.stdout, `  → ${safeText(c.fix)}`);
    }
  }
  if (failed > 0) throw new QuietFailure(1);
}
