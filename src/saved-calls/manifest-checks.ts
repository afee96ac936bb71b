import { checkInputAgainstSchema } from '../median/input-schema.js';
import { RISKS, type ManifestTool } from '../median/protocol.js';
import type { CheckProblem } from './compare-answer.js';
import type { SavedCall } from './saved-call.js';

/**
 * What only median-dev can check: the saved call against the route's current
 * manifest. The tool still exists, the input still fits its schema (the
 * route's own validation, tool-errors.txt), and its risk is unchanged — a
 * saved `low` call for a tool that became `high` would now wait for a
 * teammate's approval, which the test cannot show by sending it.
 */
export function checkAgainstManifest(saved: SavedCall, tools: readonly ManifestTool[]): CheckProblem[] {
  const tool = tools.find((t) => t.name === saved.call.tool);
  if (!tool) return [{ code: 'tool-gone', message: `${saved.call.tool} is no longer in the route's manifest (the agent cannot call it)` }];
  const problems: CheckProblem[] = [];
  const fits = checkInputAgainstSchema(tool.inputSchema, saved.call.input);
  if (!fits.ok) problems.push({ code: 'input-invalid', message: `the saved input no longer fits ${tool.name}'s inputSchema: ${fits.message}` });
  const was = saved.call.context.risk;
  if (tool.risk !== was) {
    const stricter = RISKS.indexOf(tool.risk) > RISKS.indexOf(was);
    problems.push({
      code: 'risk-changed',
      message: `${tool.name}'s risk was ${was}, now ${tool.risk}${stricter ? ' (the agent now needs more before it runs)' : ''}`,
    });
  }
  return problems;
}
