/**
 * The recorded answer is what the route produced, not what the wire
 * carried: a dev server compresses when the caller accepts it (Median's
 * HTTP client does), and the verdict has to read the JSON. Only the
 * recorded copy is decoded; the caller gets the bytes as they came.
 *
 * Decoding runs on zlib's thread pool chunk by chunk (never one synchronous
 * call on the event loop) and stops at a byte limit (the recording limit):
 * a gzip bomb costs at most that much memory and leaves the proxy's own
 * answers (health, other calls) on time.
 */
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw, type Gunzip } from 'node:zlib';
import type { Transform } from 'node:stream';

export interface DecodedBody {
  bytes: Buffer;
  /**
   * Size of the decoded body when the whole body was decoded; when decoding
   * stopped at the limit, how much it had decoded by then (a lower bound);
   * undefined when the wire bytes were cut.
   */
  size: number | undefined;
  /** Decoding stopped at the limit: `bytes` is the first `limit` bytes of more. */
  isCut?: true;
}

function encodingOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.trim().toLowerCase();
}

/** Whether `decodeContent` has anything to decode for this `content-encoding`. */
export function isEncoded(contentEncoding: string | string[] | undefined): boolean {
  return DECODERS[encodingOf(contentEncoding)] !== undefined;
}

const ZLIB_OPTIONS = { finishFlush: constants.Z_SYNC_FLUSH };
const DECODERS: Readonly<Record<string, () => Transform | Gunzip>> = Object.freeze({
  gzip: () => createGunzip(ZLIB_OPTIONS),
  'x-gzip': () => createGunzip(ZLIB_OPTIONS),
  br: () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }),
  deflate: () => createInflate(ZLIB_OPTIONS),
});

/**
 * Decodes `bytes` per `content-encoding`, keeping at most `limit` decoded
 * bytes. `complete` is false when the bytes were cut at the recording limit:
 * then whatever decodes is returned and the full size stays unknown.
 * Unknown or broken encodings give the bytes back.
 */
export async function decodeContent(
  bytes: Buffer,
  contentEncoding: string | string[] | undefined,
  complete: boolean,
  limit: number,
): Promise<DecodedBody> {
  const encoding = encodingOf(contentEncoding);
  const asCame: DecodedBody = { bytes, size: complete ? bytes.length : undefined };
  const decoder = DECODERS[encoding];
  if (decoder === undefined || bytes.length === 0) return asCame;
  const decoded =
    (await decodeBounded(decoder(), bytes, limit)) ??
    // Some servers send raw deflate under this name.
    (encoding === 'deflate' ? await decodeBounded(createInflateRaw(ZLIB_OPTIONS), bytes, limit) : undefined);
  // Not decodable as labelled: record the bytes as they came.
  if (decoded === undefined) return asCame;
  if (decoded.isCut) return { bytes: decoded.bytes, size: complete ? decoded.count : undefined, isCut: true };
  return { bytes: decoded.bytes, size: complete ? decoded.bytes.length : undefined };
}

/** Runs `bytes` through `stream` until it ends, fails (undefined) or passes `limit` (cut there, the stream destroyed). */
function decodeBounded(stream: Transform, bytes: Buffer, limit: number): Promise<{ bytes: Buffer; count: number; isCut: boolean } | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let count = 0;
    let isDone = false;
    const finish = (outcome: { bytes: Buffer; count: number; isCut: boolean } | undefined): void => {
      if (isDone) return;
      isDone = true;
      resolve(outcome);
    };
    stream.on('data', (chunk: Buffer) => {
      if (isDone) return;
      if (count + chunk.length <= limit) {
        chunks.push(chunk);
        count += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, limit - count));
      count += chunk.length;
      finish({ bytes: Buffer.concat(chunks), count, isCut: true });
      stream.destroy();
    });
    // A partial decode that then fails (a cut or damaged tail) keeps what decoded, like Z_SYNC_FLUSH did.
    stream.on('error', () => finish(count > 0 ? { bytes: Buffer.concat(chunks), count, isCut: false } : undefined));
    stream.on('end', () => finish({ bytes: Buffer.concat(chunks), count, isCut: false }));
    stream.end(bytes);
  });
}

const BINARY_TYPE = /^(image|audio|video|font)\/|^application\/(octet-stream|wasm|zip|gzip|pdf|x-protobuf)/i;

/** True for content types whose bytes make no sense as text in a record. */
export function isBinaryContentType(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && BINARY_TYPE.test(value.trim());
}
