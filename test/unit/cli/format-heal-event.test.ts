import { describe, expect, it } from 'vitest';
import { eventToJsonLine, eventToLogLine } from '../../../src/cli/format-event.js';
import { createStyle } from '../../../src/cli/terminal-style.js';

const plain = createStyle(false);
const URL = 'https://brave-lynx.loca.lt/api/median';

describe('heal and local-only lines of `start --no-tui` and `--json`', () => {
  it('each in-between state is a line naming the state and the target URL', () => {
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'changing', url: URL }, plain)).toBe(`heal     changing → ${URL}  (writing the URL, restarting the dev server)`);
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'connecting', url: URL }, plain)).toBe(`heal     connecting → ${URL}  (waiting for the route to answer)`);
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'syncing', url: URL }, plain)).toBe(`heal     syncing → ${URL}  (moving the endpoint, waiting for its sync)`);
  });

  it('done says how long it took, and when the endpoint did not end synced', () => {
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'done', url: URL, durationMs: 1456, synced: true }, plain)).toBe(`heal     done ${URL} in 1.5 s`);
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'done', url: URL, durationMs: 40, synced: false }, plain)).toBe(`heal     done, endpoint not synced ${URL} in 0.0 s`);
  });

  it('a resumed heal (the dev server answers at last) says so on its lines', () => {
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'syncing', url: URL, resumed: true }, plain)).toBe(`heal     syncing → ${URL}  (moving the endpoint, waiting for its sync) (resumed: the dev server answers)`);
    expect(eventToLogLine({ event: 'heal', at: 't', state: 'done', url: URL, durationMs: 31_000, synced: true, resumed: true }, plain)).toBe(`heal     done ${URL} in 31.0 s (resumed: the dev server answers)`);
  });

  it('the --json line is the event as it is', () => {
    expect(JSON.parse(eventToJsonLine({ event: 'heal', at: '2026-01-05T14:02:11.880Z', state: 'syncing', url: URL }))).toEqual({ event: 'heal', at: '2026-01-05T14:02:11.880Z', state: 'syncing', url: URL });
  });

  it('local-only is one line with its message', () => {
    expect(eventToLogLine({ event: 'local-only', at: 't', toolsUrl: null, message: 'The dev server runs without a tunnel.' }, plain)).toBe('tunnel   not open yet: The dev server runs without a tunnel.');
  });
});
