import { createHash } from 'node:crypto';
import { basename, isAbsolute, normalize, sep } from 'node:path';

const HASH_LENGTH = 6;
const MAX_LENGTH = 63;

/**
 * The subdomain a project asks for by default: its folder name, sanitized,
 * then a short stable hash of its absolute path (`my-shop-3f9a1c`). Always
 * 8–63 characters of [a-z0-9-], starting and ending with a letter or digit,
 * so localtunnel servers accept it.
 */
export function deriveSubdomain(projectDir: string): string {
  if (!isAbsolute(projectDir)) throw new TypeError(`deriveSubdomain needs an absolute path, got "${projectDir}"`);
  let path = normalize(projectDir);
  while (path.length > 1 && path.endsWith(sep)) path = path.slice(0, -1);
  const hash = createHash('sha256').update(path).digest('hex').slice(0, HASH_LENGTH);
  const slug = slugify(basename(path)).slice(0, MAX_LENGTH - HASH_LENGTH - 1).replace(/-+$/, '');
  return `${slug || 'project'}-${hash}`;
}

function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
