/**
 * A copy of a streamed body, kept up to a byte limit while the whole body
 * streams on untouched. Past the limit only the size is counted, so nothing
 * is held in memory beyond `limit` bytes per body.
 */
export class BodyCapture {
  /** Every byte seen, including those past the limit. */
  size = 0;
  private readonly limit: number;
  private chunks: Buffer[] = [];
  private kept = 0;
  private compact: Buffer | undefined;

  constructor(limit: number) {
    this.limit = Math.max(0, limit);
  }

  add(chunk: Buffer): void {
    this.size += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
    this.compact = undefined;
  }

  /** True when the body was longer than the limit. */
  get truncated(): boolean {
    return this.size > this.kept;
  }

  /**
   * The kept bytes as one buffer. A body that came in one chunk is that
   * chunk, not a copy (node:http hands every body chunk over in a buffer of
   * its own, which nothing changes afterwards); several are joined once.
   */
  bytes(): Buffer {
    if (this.compact === undefined) {
      this.compact = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.kept);
      this.chunks = [this.compact];
    }
    return this.compact;
  }
}
