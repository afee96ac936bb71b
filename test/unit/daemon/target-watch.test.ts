import { describe, expect, it } from 'vitest';
import { createTargetWatch } from '../../../src/daemon/target-watch.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';

function watch() {
  const events: NewDaemonEvent[] = [];
  return { events, target: createTargetWatch({ target: 'http://127.0.0.1:3000', route: '/api/median', emit: (e) => events.push(e) }) };
}

describe('the target watch', () => {
  it.each<[string, string | undefined, number, boolean, boolean]>([
    ['a starting dev server that said nothing gets 10 s', undefined, 9_000, true, false],
    ['…and is said at 10 s', undefined, 10_000, true, true],
    ['one that said it listens elsewhere is said at 3 s', 'ready - started server on http://localhost:3001', 3_000, true, true],
    ['one that listens where expected gets 10 s', '  ▲ Local: http://127.0.0.1:3000', 3_000, true, false],
    ['no dev server starting: 3 s', undefined, 3_000, false, true],
    ['…not before', undefined, 2_999, false, false],
  ])('%s', (_name, line, elapsedMs, isStarting, isSaid) => {
    const { events, target } = watch();
    if (line) target.noteOutput(line);
    target.unreachable('refused', elapsedMs, isStarting);
    expect(events.map((e) => (e.event === 'error' ? e.code : e.event))).toEqual(isSaid ? ['target_unreachable'] : []);
  });

  it('says it once until the target answers, then again', () => {
    const { events, target } = watch();
    target.noteOutput('Local: http://0.0.0.0:3001');
    target.unreachable('refused', 5_000, true);
    target.unreachable('refused', 6_000, true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ hint: expect.stringContaining('--target http://127.0.0.1:3001') });
    target.answered();
    target.unreachable('refused', 5_000, true);
    expect(events).toHaveLength(2);
  });
});
