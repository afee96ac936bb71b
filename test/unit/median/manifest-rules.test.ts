import { describe, expect, it } from 'vitest';
import { checkManifest, checkToolsAcrossEndpoints, RESERVED_TOOL_NAMES } from '../../../src/median/index.js';

type Tool = Record<string, unknown>;

function tool(name = 'orderStatus', extra: Tool = {}): Tool {
  return {
    name,
    description: 'Look up an order by its number.',
    risk: 'low',
    inputSchema: {
      type: 'object',
      properties: { orderNumber: { type: 'string' } },
      required: ['orderNumber'],
      additionalProperties: false,
    },
    ...extra,
  };
}

function manifest(tools: unknown[] = [tool()], extra: Tool = {}): Tool {
  return { version: 1, tools, ...extra };
}

function schemaWith(fields: number, extra: Tool = {}): Tool {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < fields; i++) properties[`f${i}`] = { type: 'string' };
  return { type: 'object', properties, additionalProperties: false, ...extra };
}

/** A schema whose JSON is exactly `chars` characters long. */
function schemaOfLength(chars: number): Tool {
  const base = { type: 'object', properties: { a: { type: 'string', description: '' } }, additionalProperties: false };
  const pad = chars - JSON.stringify(base).length;
  return { ...base, properties: { a: { type: 'string', description: 'x'.repeat(pad) } } };
}

const manyTools = (n: number): Tool[] => Array.from({ length: n }, (_, i) => tool(`tool${i}`));

describe('checkManifest', () => {
  it('gives [] for a valid manifest', () => {
    expect(checkManifest(manifest())).toEqual([]);
    expect(checkManifest(manifest([]))).toEqual([]);
    expect(checkManifest(manifest(manyTools(20)))).toEqual([]);
    expect(checkManifest(manifest([tool('a', { inputSchema: schemaWith(20) })]))).toEqual([]);
    expect(checkManifest(manifest([tool('a', { description: 'd'.repeat(500) })]))).toEqual([]);
    expect(checkManifest(manifest([tool('a', { inputSchema: schemaOfLength(8000) })]))).toEqual([]);
    expect(checkManifest(manifest([tool('a'.repeat(64))]))).toEqual([]);
    expect(checkManifest(manifest(['low', 'medium', 'reviewed', 'high'].map((risk) => tool(`t_${risk}`, { risk }))))).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'hello', 'The manifest has to be a JSON object.'],
    ['an array', [], 'The manifest has to be a JSON object.'],
    [
      'version 2',
      manifest([], { version: 2 }),
      'The manifest version is 2, and this backend speaks version 1. Update @mediansh/agent-tools or Median, whichever is behind.',
    ],
    [
      'version 0',
      manifest([], { version: 0 }),
      'The manifest version is 0, and this backend speaks version 1. Update @mediansh/agent-tools or Median, whichever is behind.',
    ],
    ['no version', { tools: [] }, 'version is required.'],
    ['version not a number', manifest([], { version: true }), 'version has to be a number.'],
    ['no tools', { version: 1 }, 'tools is required.'],
    ['tools not an array', manifest([], { tools: {} }), 'tools has to be an array.'],
    ['21 tools', manifest(manyTools(21)), 'These endpoints would declare 21 tools together, and the organization limit is 20.'],
    ['a tool that is not an object', manifest([42]), 'tools[0] has to be an object.'],
    ['no name', manifest([tool('x', { name: undefined })]), 'tools[0].name is required.'],
    ['name not a string', manifest([tool('x', { name: 7 })]), 'tools[0].name has to be a string.'],
    [
      'name starting with a digit',
      manifest([tool('1abc')]),
      'tools[0].name "1abc" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.',
    ],
    [
      'name with a dash',
      manifest([tool('order-status')]),
      'tools[0].name "order-status" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.',
    ],
    [
      'name of 65 characters',
      manifest([tool('a'.repeat(65))]),
      `tools[0].name "${'a'.repeat(65)}" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.`,
    ],
    ['reserved name', manifest([tool('handOff')]), 'tools[0].name "handOff" is one of the agent’s own tools. Pick another name.'],
    [
      'duplicate name',
      manifest([tool('a'), tool('a')]),
      'tools[1].name "a" is already used by tools[0]. Tool names have to be unique.',
    ],
    ['no description', manifest([tool('a', { description: undefined })]), 'tools[0].description is required.'],
    ['blank description', manifest([tool('a', { description: '  ' })]), 'tools[0].description is required.'],
    ['description not a string', manifest([tool('a', { description: 3 })]), 'tools[0].description has to be a string.'],
    ['description of 501 characters', manifest([tool('a', { description: 'd'.repeat(501) })]), 'tools[0].description is over 500 characters.'],
    ['no risk', manifest([tool('a', { risk: undefined })]), 'tools[0].risk is required.'],
    ['unknown risk', manifest([tool('a', { risk: 'extreme' })]), 'tools[0].risk has to be one of: low, medium, reviewed, high.'],
    ['no inputSchema', manifest([tool('a', { inputSchema: undefined })]), 'tools[0].inputSchema is required.'],
    ['inputSchema not an object', manifest([tool('a', { inputSchema: 'x' })]), 'tools[0].inputSchema has to be an object.'],
    ['inputSchema.type not object', manifest([tool('a', { inputSchema: schemaWith(1, { type: 'string' }) })]), 'tools[0].inputSchema.type has to be "object".'],
    ['no properties', manifest([tool('a', { inputSchema: { type: 'object', additionalProperties: false } })]), 'tools[0].inputSchema.properties is required.'],
    [
      'a property that is not an object',
      manifest([tool('a', { inputSchema: { type: 'object', properties: { x: 1 }, additionalProperties: false } })]),
      'tools[0].inputSchema.properties.x has to be an object.',
    ],
    [
      'required not an array',
      manifest([tool('a', { inputSchema: schemaWith(1, { required: 'f0' }) })]),
      'tools[0].inputSchema.required has to be an array of field names.',
    ],
    [
      'required naming an unknown field',
      manifest([tool('a', { inputSchema: schemaWith(1, { required: ['nope'] }) })]),
      'tools[0].inputSchema.required names "nope", which is not in properties.',
    ],
    [
      'additionalProperties missing',
      manifest([tool('a', { inputSchema: { type: 'object', properties: {} } })]),
      'tools[0].inputSchema.additionalProperties has to be false.',
    ],
    [
      'additionalProperties true (third tool)',
      manifest([tool('a'), tool('b'), tool('c', { inputSchema: schemaWith(1, { additionalProperties: true }) })]),
      'tools[2].inputSchema.additionalProperties has to be false.',
    ],
    ['21 fields', manifest([tool('a', { inputSchema: schemaWith(21) })]), 'tools[0].inputSchema has 21 fields, and the most a tool can take is 20.'],
    ['schema of 8001 characters', manifest([tool('a', { inputSchema: schemaOfLength(8001) })]), 'tools[0].inputSchema is over 8000 characters.'],
  ])('%s', (_label, json, message) => {
    expect(checkManifest(json).map((p) => p.message)).toContain(message);
    expect(checkManifest(json)[0]?.message).toBe(message);
  });

  it('reports every problem, each with its path', () => {
    const problems = checkManifest(manifest([tool('1x', { description: '', risk: 'x' })]));
    expect(problems.map((p) => p.path)).toEqual(['tools[0].name', 'tools[0].description', 'tools[0].risk']);
  });

  it('does not judge another version by version 1 rules', () => {
    expect(checkManifest({ version: 3, tools: 'nonsense' })).toHaveLength(1);
  });

  it('reserves only agent built-ins, not the navigation plugin tool a route serves', () => {
    expect(RESERVED_TOOL_NAMES).not.toContain('goToPage');
    expect(checkManifest(manifest([tool('goToPage')]))).toEqual([]);
  });
});

describe('checkToolsAcrossEndpoints', () => {
  const url = 'https://new.loca.lt/api/median';
  const old = 'https://old.loca.lt/api/median';

  it.each<[string, string[], { url: string; toolNames: string[] }[], number | undefined, string | undefined]>([
    ['no other endpoint', ['a', 'b'], [], undefined, undefined],
    ['different names', ['a'], [{ url: old, toolNames: ['b'] }], undefined, undefined],
    [
      'a clash names the other endpoint',
      ['a', 'orderStatus'],
      [{ url: old, toolNames: ['orderStatus'] }],
      undefined,
      'The tool name "orderStatus" already comes from https://old.loca.lt/api/median. Tool names have to be unique across every endpoint.',
    ],
    ['the same endpoint is not a clash', ['a'], [{ url, toolNames: ['a'] }], undefined, undefined],
    ['exactly 20 together', ['a', 'b'], [{ url: old, toolNames: Array.from({ length: 18 }, (_, i) => `o${i}`) }], undefined, undefined],
    [
      '21 together',
      ['a', 'b'],
      [{ url: old, toolNames: Array.from({ length: 19 }, (_, i) => `o${i}`) }],
      undefined,
      'These endpoints would declare 21 tools together, and the organization limit is 20.',
    ],
    ['a lower limit', ['a', 'b', 'c'], [], 2, 'These endpoints would declare 3 tools together, and the organization limit is 2.'],
  ])('%s', (_label, toolNames, others, limit, message) => {
    expect(checkToolsAcrossEndpoints({ url, toolNames }, others, limit)?.message).toBe(message);
  });
});
