/** Reads the other endpoint's URL out of a clash sync error (the docs' wording). */
const CLASH = /^The tool name "(.+?)" already comes from (.+?)\. Tool names have to be unique across every endpoint\.$/;

export function parseClash(error: string | null | undefined): { tool: string; otherUrl: string } | undefined {
  if (!error) return undefined;
  const match = CLASH.exec(error.trim());
  return match ? { tool: match[1]!, otherUrl: match[2]! } : undefined;
}
