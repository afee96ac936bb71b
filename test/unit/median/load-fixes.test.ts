import { describe, expect, it } from 'vitest';
import { findLoadError, LOAD_MESSAGES } from '../../../src/median/index.js';

describe('the docs’ Load errors in a dev server’s output', () => {
  it.each([
    [LOAD_MESSAGES.invalidName('1bad'), 'A letter, then letters'],
    [LOAD_MESSAGES.noDescription('orderStatus'), 'Add one sentence'],
    [LOAD_MESSAGES.badRisk('orderStatus', 'extreme'), 'Fix the risk'],
    [LOAD_MESSAGES.notSchemaBuilt('id', 'orderStatus'), 'p.string()'],
    [LOAD_MESSAGES.noExecute('orderStatus'), 'Add execute'],
    [LOAD_MESSAGES.twoPlugins('goToPage'), 'Remove one plugin'],
    [LOAD_MESSAGES.navigationClash('goToPage'), 'Rename your tool'],
    [LOAD_MESSAGES.duplicateTool('orderStatus'), 'Rename one of them'],
  ])('%s', (message, fix) => {
    const line = `\u001b[31m ⨯ Error: ${message}\u001b[39m`;
    expect(findLoadError(line)).toEqual({ message, fix: expect.stringContaining(fix) });
  });

  it('finds nothing in ordinary output or a stack frame', () => {
    expect(findLoadError('    at assertToolsLoad (/app/route.js:95:11)')).toBeUndefined();
    expect(findLoadError('✓ Ready in 1.2s')).toBeUndefined();
    expect(findLoadError(LOAD_MESSAGES.navigationNoPages)).toBeUndefined();
  });
});
