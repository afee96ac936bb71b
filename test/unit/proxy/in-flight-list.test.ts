import { describe, expect, it } from 'vitest';
import { InFlightList, type InFlightLinks } from '../../../src/proxy/in-flight-list.js';

class Item implements InFlightLinks<Item> {
  inFlightPrev: Item | undefined = undefined;
  inFlightNext: Item | undefined = undefined;
  isInFlight = false;
  constructor(readonly name: string) {}
}

const names = (list: InFlightList<Item>): string[] => list.toArray().map((item) => item.name);

describe('InFlightList', () => {
  it.each([
    { name: 'adds newest first', ops: ['+a', '+b', '+c'], left: ['c', 'b', 'a'] },
    { name: 'removes from the middle', ops: ['+a', '+b', '+c', '-b'], left: ['c', 'a'] },
    { name: 'removes the head and the tail', ops: ['+a', '+b', '+c', '-c', '-a'], left: ['b'] },
    { name: 'ignores a second add and a removal of what is not there', ops: ['+a', '+a', '-b', '+b', '-b', '-b'], left: ['a'] },
    { name: 'takes back an item that left', ops: ['+a', '-a', '+a'], left: ['a'] },
  ])('$name', ({ ops, left }) => {
    const list = new InFlightList<Item>();
    const items = new Map<string, Item>();
    for (const op of ops) {
      const item = items.get(op.slice(1)) ?? new Item(op.slice(1));
      items.set(item.name, item);
      if (op.startsWith('+')) list.add(item);
      else list.delete(item);
    }
    expect(names(list)).toEqual(left);
    expect(list.size).toBe(left.length);
  });

  it('lets a visited item remove itself while the list is walked, and clears', () => {
    const list = new InFlightList<Item>();
    const all = ['a', 'b', 'c', 'd'].map((name) => new Item(name));
    for (const item of all) list.add(item);
    const seen: string[] = [];
    list.forEach((item) => {
      seen.push(item.name);
      if (item.name !== 'b') list.delete(item);
    });
    expect(seen).toEqual(['d', 'c', 'b', 'a']);
    expect(names(list)).toEqual(['b']);
    list.clear();
    expect(list.size).toBe(0);
    expect(all.every((item) => !item.isInFlight && item.inFlightNext === undefined && item.inFlightPrev === undefined)).toBe(true);
  });
});
