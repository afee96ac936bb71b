import { describe, expect, it } from 'vitest';
import { deriveSubdomain } from '../../../src/tunnel/index.js';

const VALID = /^[a-z0-9][a-z0-9-]{2,61}[a-z0-9]$/;

describe('deriveSubdomain', () => {
  it.each([
    ['/home/ana/my-shop', /^my-shop-[0-9a-f]{6}$/],
    ['/home/ana/My Shop', /^my-shop-[0-9a-f]{6}$/],
    ['/home/ana/Café_Ünïcode', /^cafe-unicode-[0-9a-f]{6}$/],
    ['/home/ana/--weird--..name__', /^weird-name-[0-9a-f]{6}$/],
    ['/home/ana/日本語', /^project-[0-9a-f]{6}$/],
    ['/home/ana/...', /^project-[0-9a-f]{6}$/],
    ['/', /^project-[0-9a-f]{6}$/],
    ['/home/ana/' + 'a'.repeat(200), /^a{56}-[0-9a-f]{6}$/],
    ['/home/ana/' + 'ab-'.repeat(30), /^[a-z0-9-]+[a-z0-9]-[0-9a-f]{6}$/],
  ])('%j → %s, always a valid subdomain of 4–63 characters', (dir, expected) => {
    const name = deriveSubdomain(dir);
    expect(name).toMatch(expected);
    expect(name).toMatch(VALID);
    expect(name.length).toBeGreaterThanOrEqual(4);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).not.toContain('--');
  });

  it('is stable for a path and differs between paths with the same folder name', () => {
    expect(deriveSubdomain('/a/b/app')).toBe(deriveSubdomain('/a/b/app'));
    expect(deriveSubdomain('/a/b/app/')).toBe(deriveSubdomain('/a/b/app'));
    expect(deriveSubdomain('/a/b/app')).not.toBe(deriveSubdomain('/a/c/app'));
  });

  it('refuses a relative path', () => {
    expect(() => deriveSubdomain('app')).toThrow(TypeError);
  });
});
