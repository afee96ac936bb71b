/** ` ×N` for a record made N times with the same outcome (a dead route opened again and again), else nothing. */
export function repeatMark(record: { repeats?: number | undefined }): string {
  return record.repeats !== undefined && record.repeats > 1 ? ` ×${record.repeats}` : '';
}

/** The tool column: the tool's name for a tool call (`?` when it has none), `(kind)` for any other request. */
export function toolText(record: { kind: string; tool?: string | null | undefined }): string {
  return record.kind === 'tool-call' ? (record.tool ?? '?') : `(${record.kind})`;
}
