import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keySourceLabel } from '../../../src/daemon/key-source.js';
import { createEventHub } from '../../../src/daemon/event-hub.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { formatHeader, initialState, reduce } from '../../../src/tui/index.js';

const project = resolve('/work/shop');

describe('where the key came from, for the TUI header', () => {
  it.each([
    [undefined, 'environment'],
    [join(project, '.env'), '.env'],
    [join(project, 'config', '.env.local'), join('config', '.env.local')],
    [resolve('/elsewhere/.env.local'), resolve('/elsewhere/.env.local')],
  ])('%s → %s', (file, label) => {
    expect(keySourceLabel(file, project)).toBe(label);
  });

  it('the snapshot holds it, and a key event (a rotation to another file, or to no key) updates it, in the TUI too', () => {
    const hub = createEventHub({ version: '0', isDemo: false, keyFingerprint: '…abcd', keySource: '.env', callCount: 0, records: [] });
    expect(hub.snapshot()).toMatchObject({ keyFingerprint: '…abcd', keySource: '.env' });
    let tui = reduce(initialState({ width: 200, height: 20 }), { type: 'snapshot', snapshot: hub.snapshot() }).state;
    expect(formatHeader(tui)).toContain('key …abcd from .env');
    const seen: DaemonEvent[] = [];
    hub.on((event) => void seen.push(event));
    hub.emit({ event: 'key', fingerprint: '…wxyz', source: '.env.local' });
    expect(hub.snapshot()).toMatchObject({ keyFingerprint: '…wxyz', keySource: '.env.local' });
    tui = reduce(tui, { type: 'event', event: seen[0]! }).state;
    expect(formatHeader(tui)).toContain('key …wxyz from .env.local');
    hub.emit({ event: 'key', fingerprint: null, source: null });
    expect(hub.snapshot()).toMatchObject({ keyFingerprint: null, keySource: null });
    tui = reduce(tui, { type: 'event', event: seen[1]! }).state;
    expect(formatHeader(tui)).toContain('key not set');
    expect(formatHeader(tui)).not.toContain('from .env');
  });
});
