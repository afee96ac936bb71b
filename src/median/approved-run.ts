import { RUN_MESSAGES } from './messages.js';
import type { ToolCallContext } from './protocol.js';
import type { Verdict, VerdictKind } from './verdict-types.js';

/** What `median tools test` sends as `approvedBy`: a test, not an approval. */
export const CLI_TEST_APPROVER = 'A test from the CLI';

/** Verdicts where the tool gave the agent no result. */
const FAILED: readonly VerdictKind[] = ['threw', 'invalid-input', 'not-answering'];

/**
 * An approved call: one that ran because someone let it (`approvedBy` on an
 * approved `reviewed`/`high` call, the reviewer, or a teammate running the
 * tool themselves at any risk). The reference leaves `approvedBy` absent on
 * the agent's own `low`/`medium` calls; `A test from the CLI` is a test.
 */
export function isApprovedCall(context: Pick<ToolCallContext, 'approvedBy'> | undefined): boolean {
  const by = context?.approvedBy;
  return typeof by === 'string' && by !== '' && by !== CLI_TEST_APPROVER;
}

/**
 * The verdict of an approved call as the thread shows it: when it failed at
 * the route (threw, invalid input, not answering), `<tool> did not run:
 * <error>` is what the agent gets, and a warning says the conversation turns
 * unread and the action counts as not done. Other verdicts are unchanged.
 */
export function judgeApprovedRun(tool: string, context: Pick<ToolCallContext, 'approvedBy'> | undefined, verdict: Verdict): Verdict {
  if (!isApprovedCall(context) || !FAILED.includes(verdict.kind) || verdict.didNotRun !== undefined) return verdict;
  const error = verdict.callError ?? verdict.agentSees;
  const thread = RUN_MESSAGES.didNotRun(tool, error);
  return {
    ...verdict,
    agentSees: thread,
    didNotRun: thread,
    warnings: [
      ...verdict.warnings,
      {
        code: 'approved_call_failed',
        message: `An approved call failed: the thread shows "${thread}" and the conversation turns unread. The agent treats the action as not done and hands off rather than promise it.`,
      },
    ],
  };
}

/** The verdict's label where one word is shown: `did-not-run` for a failed approved call, else its kind. */
export function verdictLabel(verdict: Pick<Verdict, 'kind' | 'didNotRun'>): string {
  return verdict.didNotRun === undefined ? verdict.kind : 'did-not-run';
}
