import { jsonNeedle } from './record-text.js';
import type { IndexKey } from './call-index-file.js';

/**
 * The ids filter: one small file beside each closed segment
 * (`calls-000001.ids` beside `calls-000001.jsonl`), a Bloom filter of every
 * id the segment's lines name (each record's id, toolCallId and replayOf, each
 * repeat line's repeatOf), so a lookup of a whole id opens the filters and
 * reads only the indexes of the segments that may hold it: `show` on the
 * oldest of 100,000 records read 20 indexes (9.5 MB) for one or two.
 *
 * Like the index it is a cache, never the truth: its header names the
 * segment's inode, size and modification time, and a filter whose segment
 * differs in any of them (appended to, rewritten, replaced) is not used.
 * Segments never change once closed, so a filter written then holds. It
 * answers "no" for certain and "maybe" otherwise, and only for a whole value:
 * a prefix (`show call_3f`) reads every index, as without it.
 *
 * The file: a JSON header line `["median-dev ids filter", 1, inode, bytes,
 * mtimeNs, bits, hashes]`, then the filter's `bits / 8` bytes.
 */
export const FILTER_MAGIC = 'median-dev ids filter';
export const FILTER_VERSION = 1;
/** Bits per id: with HASHES probes, about 1 in 120 of the segments that do not hold an id say "maybe" (a wasted index read). */
const BITS_PER_ID = 10;
const HASHES = 7;
/** A filter larger than this is not one of ours (5,000 records name ~15,000 ids: ~19 KB). */
export const MAX_FILTER_BYTES = 4 * 1024 * 1024;
const SEGMENT_SUFFIX = '.jsonl';

/** `calls-000001.jsonl` → `calls-000001.ids` (never a name the segment pattern takes). */
export function filterPathOf(segmentPath: string): string {
  const stem = segmentPath.endsWith(SEGMENT_SUFFIX) ? segmentPath.slice(0, -SEGMENT_SUFFIX.length) : segmentPath;
  return `${stem}.ids`;
}

/** What a filter is bound to: its segment as it was when the filter was made. */
export interface FilterStamp {
  inode: bigint;
  bytes: number;
  mtimeNs: bigint;
}

/** Printable ASCII but `"` and `\`: a string of only these is its own needle (JSON.stringify leaves it as it is). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Two 32-bit hashes of a needle's bytes (FNV-1a, and FNV-1a from another
 * basis mixed by murmur3's finaliser), for double hashing: of `bytes`, or
 * of a plain id's characters (the same bytes, without making them).
 */
function hashesOf(bytes: Uint8Array | string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const isText = typeof bytes === 'string';
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = isText ? bytes.charCodeAt(i) : bytes[i]!;
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x01000193);
  }
  b ^= b >>> 16;
  b = Math.imul(b, 0x85ebca6b);
  b ^= b >>> 13;
  b = Math.imul(b, 0xc2b2ae35);
  b ^= b >>> 16;
  return [a >>> 0, (b | 1) >>> 0];
}

/** An id's hashes as a lookup's needle for it hashes (record-text.ts's jsonNeedle: its JSON text, escaped as in the segments). */
const hashesOfId = (id: string): [number, number] => hashesOf(PLAIN.test(id) ? id : jsonNeedle(id));

/** The `i`th probe's bit of a filter of `bits` bits (double hashing, in unsigned 32-bit arithmetic). */
const bitOf = (a: number, b: number, i: number, bits: number): number => ((a + Math.imul(i, b)) >>> 0) % bits;

/** The ids an index entry (or the key it is written from) names. */
export function idsOfEntry(entry: IndexKey): string[] {
  if (entry.kind === 'call') return entry.replayOf === null ? [entry.id, entry.toolCallId] : [entry.id, entry.toolCallId, entry.replayOf];
  return entry.kind === 'repeat' ? [entry.repeatOf] : [];
}

/** What makes a filter: each id of a segment's lines added as it comes, then the file's bytes. */
export interface FilterBuilder {
  add(id: string): void;
  build(stamp: FilterStamp): Buffer;
}

/** The size of a filter for `ids` ids (a multiple of 64 bits). */
const bitsFor = (ids: number): number => Math.max(64, Math.ceil((ids * BITS_PER_ID) / 64) * 64);

function fileOf(set: Uint8Array, bits: number, stamp: FilterStamp): Buffer {
  const header = `${JSON.stringify([FILTER_MAGIC, FILTER_VERSION, stamp.inode.toString(), stamp.bytes, stamp.mtimeNs.toString(), bits, HASHES])}\n`;
  return Buffer.concat([Buffer.from(header, 'utf8'), set]);
}

function setBits(set: Uint8Array, bits: number, a: number, b: number): void {
  for (let i = 0; i < HASHES; i += 1) {
    const bit = bitOf(a, b, i, bits);
    set[bit >>> 3]! |= 1 << (bit & 7);
  }
}

/**
 * A filter sized for the ids it may get (`expectedIds`), its bits set as
 * each comes: what the recorder keeps while it writes a segment (~13 KB
 * for 5,000 records, allocated once; nothing kept per id). More ids than
 * expected only make it say "maybe" more often.
 */
export function sizedFilterBuilder(expectedIds: number): FilterBuilder {
  const bits = bitsFor(expectedIds);
  const set = new Uint8Array(bits / 8);
  return {
    add(id) {
      const [a, b] = hashesOfId(id);
      setBits(set, bits, a, b);
    },
    build: (stamp) => fileOf(set, bits, stamp),
  };
}

/** A filter sized when it is built, for as many ids as it got (each id's two hashes kept until then: 8 bytes an id). */
export function countedFilterBuilder(): FilterBuilder {
  let hashes = new Uint32Array(2 * 1024);
  let count = 0;
  return {
    add(id) {
      if (2 * count === hashes.length) {
        const grown = new Uint32Array(2 * hashes.length);
        grown.set(hashes);
        hashes = grown;
      }
      const [a, b] = hashesOfId(id);
      hashes[2 * count] = a;
      hashes[2 * count + 1] = b;
      count += 1;
    },
    build(stamp) {
      const bits = bitsFor(count);
      const set = new Uint8Array(bits / 8);
      for (let id = 0; id < count; id += 1) setBits(set, bits, hashes[2 * id]!, hashes[2 * id + 1]!);
      return fileOf(set, bits, stamp);
    },
  };
}

/** A filter read back, bound to its segment. */
export interface IdsFilter {
  /** False: no line of the segment names this needle as a whole id; true: it may. */
  mayHold(needle: Uint8Array): boolean;
}

/** The filter in a file's bytes, when it is one of this version made for the segment `stamp` describes; else undefined (not used). */
export function parseFilter(file: Buffer, stamp: FilterStamp): IdsFilter | undefined {
  const headerEnd = file.indexOf(0x0a);
  if (headerEnd === -1 || headerEnd > 512) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(file.subarray(0, headerEnd).toString('utf8'));
  } catch {
    return undefined; // not a header: the segment's index is read
  }
  if (!Array.isArray(header) || header.length !== 7 || header[0] !== FILTER_MAGIC || header[1] !== FILTER_VERSION) return undefined;
  const [, , inode, bytes, mtimeNs, bits, hashes] = header as [unknown, unknown, unknown, unknown, unknown, unknown, unknown];
  if (inode !== stamp.inode.toString() || bytes !== stamp.bytes || mtimeNs !== stamp.mtimeNs.toString()) return undefined;
  if (!Number.isSafeInteger(bits) || (bits as number) <= 0 || (bits as number) % 64 !== 0 || hashes !== HASHES) return undefined;
  const set = file.subarray(headerEnd + 1);
  if (set.length !== (bits as number) / 8) return undefined;
  const size = bits as number;
  return {
    mayHold(needle) {
      const [a, b] = hashesOf(needle);
      for (let i = 0; i < HASHES; i += 1) {
        const bit = bitOf(a, b, i, size);
        if ((set[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
      }
      return true;
    },
  };
}
