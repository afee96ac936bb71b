/**
 * How every screen names a call median-dev's emulator holds for a decision,
 * and what a decision did (the TUI's footer, the inspector's flash). The
 * shapes are the events' EmulatorApproval and EmulatorDecisionAnswer, written
 * out here because presentation imports no other core folder but median.
 */

export interface HeldCall {
  id: string;
  tool: string;
  risk: string;
}

export interface DecisionOutcome {
  id?: string;
  decision?: 'approve' | 'deny';
  tool?: string;
  by?: string;
  status?: number | null;
  verdict?: string;
  didNotRun?: string;
}

/** A held call in a line: the tool, its approval id and its risk. */
export function heldLabel(held: HeldCall): string {
  return `${held.tool} ${held.id} (risk ${held.risk})`;
}

/** What a decision did: denied (nothing sent), or approved and how its run at the route went. */
export function describeDecision(answer: DecisionOutcome): string {
  const what = `${answer.tool ?? '?'} ${answer.id ?? ''}`.trim();
  const by = answer.by ?? 'A teammate';
  if (answer.decision === 'deny') return `${what} denied by ${by}: nothing was sent; the agent is told no.`;
  if (answer.didNotRun) return `${what} approved by ${by}, and it failed: ${answer.didNotRun}`;
  const status = typeof answer.status === 'number' ? `HTTP ${answer.status}` : 'no answer';
  return `✓ ${what} approved by ${by}: it ran at the route, ${status}${answer.verdict ? ` ${answer.verdict}` : ''}.`;
}
