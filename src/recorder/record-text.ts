import type { CallRecord } from '../median/call-record.js';
import { escapeJsonControls } from '../shared/output-sanitiser.js';

/** How a string appears inside a JSON line, for a cheap test before parsing. */
export function jsonNeedle(text: string): Buffer {
  return Buffer.from(escapeJsonControls(JSON.stringify(text)).slice(1, -1), 'utf8');
}

/** Whether the record's ids, tool, conversation, bodies, agent text or error message hold `needle` (lower case). */
export function matchesText(record: CallRecord, needle: string): boolean {
  const fields = [
    record.id,
    record.toolCallId,
    record.tool,
    record.conversationId,
    record.request?.path,
    record.request?.body,
    record.response?.body,
    record.verdict?.agentSees,
    record.error?.message,
  ];
  return fields.some((field) => typeof field === 'string' && field.toLowerCase().includes(needle));
}

