import { RUN_MESSAGES } from './messages.js';

/**
 * What to do about each approval and run error (tool-errors.txt, "Approval
 * and run errors"). The docs give codes and messages, and point at "How tool
 * calls run" for the rules; these fixes are OURS, written from those rules.
 */
const RUN_FIXES: Readonly<Record<string, string>> = Object.freeze({
  approval_settled: 'Someone already approved or declined it; nothing more to do. `median-dev emulate approvals` lists what still waits.',
  approval_not_found: 'Check the id (apr_…): `median-dev emulate approvals` lists the requests that wait for a decision.',
  invalid_input: "Fix the field the message names so the input fits the tool's input schema (`median-dev manifest` prints it).",
  too_many_running: 'Wait for one of the running tools to finish (a run that reports nothing is marked by the hourly check), then run it again.',
  conversation_archived: 'Move the conversation out of the archive first, then run the tool.',
  invalid_request: "Send one of them: conversationId runs in that conversation, with its stored visitor; `as` runs as a visitor outside any conversation.",
});

/** The fix for an approval or run error; two codes have two messages each, so pass Median's `message`. */
export function runFix(code: string, message?: string): string | undefined {
  if (code === 'approval_expired') {
    return message === RUN_MESSAGES.expiredConversationEnded
      ? 'The conversation ended, so what it asked for expired with it: the agent asks again in a new conversation.'
      : 'Nobody decided in time. Have the agent ask again, and decide while the customer is still there.';
  }
  if (code === 'tool_not_found') {
    return message !== undefined && message.endsWith('is not one of your switched on tools.')
      ? 'No endpoint serves a tool by that name: check the name, or sync the endpoint that serves it (`median-dev sync`).'
      : 'Switch it on under Agent → Tools (`median tools enable <name>`), and check its endpoint synced (`median-dev endpoints`).';
  }
  return RUN_FIXES[code];
}
