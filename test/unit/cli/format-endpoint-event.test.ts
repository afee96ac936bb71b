import { describe, expect, it } from 'vitest';
import { eventToLogLine } from '../../../src/cli/format-event.js';
import { createStyle } from '../../../src/cli/terminal-style.js';

const plain = createStyle(false);

describe('endpoint lines of `start --no-tui`', () => {
  it('a clash names the other endpoint, whose it is, and the fix', () => {
    const line = eventToLogLine(
      {
        event: 'endpoint',
        at: '2026-01-01T00:00:00.000Z',
        action: 'clash',
        id: 'tep_1',
        url: 'https://mine.loca.lt/api/median',
        otherUrl: 'https://acme.com/api/median',
        otherOwner: 'production',
        tool: 'orderStatus',
        fix: 'median-dev never removes it.',
      },
      plain,
    );
    expect(line).toContain('clashes with https://acme.com/api/median (production or a preview)');
    expect(line).toContain('→ median-dev never removes it.');
  });

  it('a dev server still starting is a waiting line, not a red failure', () => {
    const line = eventToLogLine({ event: 'endpoint', at: 't', action: 'waiting', id: 'tep_1', url: 'u', error: 'The endpoint answered 500.' }, plain);
    expect(line?.split('\n').map((l) => l.trim())).toEqual(['endpoint waiting tep_1 u', 'the dev server is still starting (The endpoint answered 500.): syncing again for a few seconds']);
  });

  it('a failed sync prints the docs’ fix under Median’s message', () => {
    const line = eventToLogLine(
      { event: 'endpoint', at: 't', action: 'sync-failed', id: 'tep_1', url: 'u', error: 'The endpoint answered 404.', fix: '404 is usually the wrong path.' },
      plain,
    );
    expect(line?.split('\n').map((l) => l.trim())).toEqual(['endpoint sync-failed tep_1 u', 'The endpoint answered 404.', '→ 404 is usually the wrong path.']);
  });
});
