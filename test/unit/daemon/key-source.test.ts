import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keySourceLabel } from '../../../src/daemon/key-source.js';
import { createEventHub } from '../../../src/daemon/event-hub.js';

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

  it('the snapshot holds it, and a rotation to another file or to no key updates it', () => {
    const hub = createEventHub({ version: '0', isDemo: false, keyFingerprint: '…abcd', keySource: '.env', callCount: 0, records: [] });
    expect(hub.snapshot()).toMatchObject({ keyFingerprint: '…abcd', keySource: '.env' });
    hub.setKeyFingerprint('…wxyz', '.env.local');
    expect(hub.snapshot()).toMatchObject({ keyFingerprint: '…wxyz', keySource: '.env.local' });
    hub.setKeyFingerprint(null, '.env.local');
    expect(hub.snapshot()).toMatchObject({ keyFingerprint: null, keySource: null });
  });
});
