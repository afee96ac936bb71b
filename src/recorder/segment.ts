/**
 * A segment as the segment log tracks it: where it is, what it holds, and
 * whether its file exists yet.
 *
 * A class, so that every segment has the hidden class its constructor gives
 * it. As object literals (a spread of the path's `{ seq, path }`), the
 * segments the daemon started at rotations reached the write path
 * (`writableNow`, `linesFitting`, `appendNow`) in new shapes, and V8 threw
 * that optimised code away ("wrong map"): 11 or 12 times over the 27,000
 * calls after a 9,000-call warm-up, in each of five runs; never in three
 * runs with the class (BENCHMARKS.md, "Kept").
 */
export class Segment {
  constructor(
    public seq: number,
    public path: string,
    public records: number,
    public bytes: number,
    /** False for a segment decided on but not created yet. */
    public onDisk: boolean,
  ) {}

  /** This segment is file `seq` at `path` instead (its name was taken, or became a link): the same object, so whoever holds it follows. */
  renumber(seq: number, path: string): void {
    this.seq = seq;
    this.path = path;
  }

  /** This segment is a new, empty file `seq` at `path`, not created yet (its file was refused). */
  startOver(seq: number, path: string): void {
    this.renumber(seq, path);
    this.records = 0;
    this.bytes = 0;
    this.onDisk = false;
  }
}
