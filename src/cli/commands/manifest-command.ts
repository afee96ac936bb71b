import { checkManifest, type ManifestTool } from '../../median/index.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { fetchManifest } from '../fetch-manifest.js';
import { requireSecret } from '../require-secret.js';
import { createStyle } from '../terminal-style.js';
import { QuietFailure } from '../quiet-failure.js';

export async function runManifest(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const secret = requireSecret(config, 'A manifest read');
  const url = `${config.target}${config.route}`;
  const fetched = await fetchManifest(url, secret);
  const problems =
    fetched.judgement.ok || fetched.json === undefined
      ? fetched.judgement.ok
        ? []
        : [{ path: '', message: fetched.judgement.message }]
      : checkManifest(fetched.json);
  const allProblems = problems.length > 0 ? problems : fetched.judgement.ok ? [] : [{ path: '', message: fetched.judgement.message }];
  const wouldSync = fetched.judgement.ok && allProblems.length === 0;
  const manifest = fetched.judgement.ok ? fetched.judgement.manifest : null;

  if (config.json) {
    writeJson(io, {
      url,
      status: fetched.outcome.kind === 'answer' ? fetched.outcome.status : null,
      wouldSync,
      problems: allProblems,
      manifest: manifest ?? (fetched.json !== undefined ? fetched.json : null),
    });
  } else {
    const style = createStyle(useColor(io));
    const status = fetched.outcome.kind === 'answer' ? `HTTP ${fetched.outcome.status}` : 'no answer';
    writeLine(io.stdout, `GET ${url} (signed) → ${status}`);
    const tools = (manifest?.tools ?? (fetched.json as { tools?: ManifestTool[] } | undefined)?.tools ?? []) as ManifestTool[];
    if (Array.isArray(tools) && tools.length > 0) {
      writeLine(io.stdout, '');
      for (const tool of tools) {
        const fields = Object.keys(tool?.inputSchema?.properties ?? {});
        writeLine(io.stdout, `  ${style.bold(String(tool?.name))}  ${style.dim(String(tool?.risk))}  ${fields.length} field${fields.length === 1 ? '' : 's'}${fields.length ? style.dim(` (${fields.join(', ')})`) : ''}`);
        if (typeof tool?.description === 'string') writeLine(io.stdout, `    ${style.dim(tool.description.slice(0, 120))}`);
      }
    }
    writeLine(io.stdout, '');
    if (wouldSync) {
      writeLine(io.stdout, style.green(`✓ Would sync: ${tools.length} tool${tools.length === 1 ? '' : 's'}, every sync rule passes.`));
    } else {
      writeLine(io.stdout, style.red(`✗ Would fail to sync (${allProblems.length} problem${allProblems.length === 1 ? '' : 's'}):`));
      for (const p of allProblems) writeLine(io.stdout, `  • ${p.message}`);
    }
  }
  if (!wouldSync) throw new QuietFailure(1);
}
