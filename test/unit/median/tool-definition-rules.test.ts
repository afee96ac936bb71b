import { describe, expect, it } from 'vitest';
import { checkToolDefinitions, type ToolDefinitionInput } from '../../../src/median/index.js';

const field = { kind: 'string' };
const execute = async (): Promise<unknown> => ({});
const good = (extra: Partial<ToolDefinitionInput> = {}): ToolDefinitionInput => ({
  name: 'orderStatus',
  description: 'Look up an order.',
  risk: 'low',
  execute,
  fields: { orderNumber: field, count: { kind: 'number' }, ok: { kind: 'boolean' }, size: { kind: 'enum' } },
  ...extra,
});

describe('checkToolDefinitions', () => {
  it('gives [] for good tools', () => {
    expect(checkToolDefinitions([good(), good({ name: 'b', fields: undefined })])).toEqual([]);
  });

  it.each<[string, ToolDefinitionInput[], string[]]>([
    [
      'a bad name',
      [good({ name: 'order-status' })],
      ['Median: the tool name "order-status" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.'],
    ],
    [
      'a name that is not a string',
      [good({ name: 42 })],
      ['Median: the tool name "42" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.'],
    ],
    [
      'no description',
      [good({ description: undefined })],
      ['Median: the tool "orderStatus" has no description. Add one sentence that says when to use it.'],
    ],
    ['a bad risk', [good({ risk: 'extreme' })], ['Median: the tool "orderStatus" has risk "extreme". Use “low”, “medium”, “reviewed” or “high”.']],
    [
      'a field not from the builder',
      [good({ fields: { orderNumber: { type: 'string' } } })],
      [
        'Median: the field "orderNumber" on "orderStatus" was not built with the schema builder. Use p.string(), p.number(), p.boolean() or p.enum().',
      ],
    ],
    ['no execute', [good({ execute: 'run' })], ['Median: the tool "orderStatus" has no execute function.']],
    ['two tools with one name', [good(), good()], ['Median: two tools are both called "orderStatus". Rename one of them.']],
  ])('%s', (_label, tools, messages) => {
    expect(checkToolDefinitions(tools)).toEqual(messages);
  });

  it('reports plugin clashes', () => {
    expect(checkToolDefinitions([good({ name: 'goToPage' })], { plugins: [{ plugin: 'navigation', tools: ['goToPage'] }] })).toEqual([
      'Median: your tool "goToPage" has the same name as one from the navigation plugin. Rename yours, or drop the plugin.',
    ]);
    expect(
      checkToolDefinitions([], {
        plugins: [
          { plugin: 'a', tools: ['search'] },
          { plugin: 'b', tools: ['search'] },
        ],
      }),
    ).toEqual(['Median: two plugins both define a tool called "search". Take one of them out.']);
  });

  it('takes a custom field check', () => {
    expect(checkToolDefinitions([good({ fields: { a: 'x' } })], { isSchemaField: (f) => f === 'x' })).toEqual([]);
  });
});
