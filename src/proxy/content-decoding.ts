/**
 * The recorded answer is what the route produced, not what the wire
 * carried: a dev server compresses when the caller accepts it (Median's
 * HTTP client does), and the verdict has to read the JSON. Only the
 * recorded copy is decoded; the caller gets the bytes as they came.
 */
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

export interface DecodedBody {
  bytes: Buffer;
  /** Size of the decoded body when the whole body was decoded, else undefined. */
  size: number | undefined;
}

/** Decoded output past this is not kept (a dev server would not send it; a bomb might). */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;

function encodingOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.trim().toLowerCase();
}

/**
 * Decodes `bytes` per `content-encoding`. `complete` is false when the bytes
 * were cut at the recording limit: then whatever decodes is returned and the
 * full size stays unknown. Unknown or broken encodings give the bytes back.
 */
export function decodeContent(bytes: Buffer, contentEncoding: string | string[] | undefined, complete: boolean): DecodedBody {
  const encoding = encodingOf(contentEncoding);
  if (encoding === '' || encoding === 'identity' || bytes.length === 0) {
    return { bytes, size: complete ? bytes.length : undefined };
  }
  const zlibOptions = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_DECODED_BYTES };
  try {
    let decoded: Buffer;
    if (encoding === 'gzip' || encoding === 'x-gzip') decoded = gunzipSync(bytes, zlibOptions);
    else if (encoding === 'br') {
      decoded = brotliDecompressSync(bytes, {
        finishFlush: constants.BROTLI_OPERATION_FLUSH,
        maxOutputLength: MAX_DECODED_BYTES,
      });
    } else if (encoding === 'deflate') {
      // Some servers send raw deflate under this name.
      try {
        decoded = inflateSync(bytes, zlibOptions);
      } catch {
        decoded = inflateRawSync(bytes, zlibOptions);
      }
    } else {
      return { bytes, size: complete ? bytes.length : undefined };
    }
    return { bytes: decoded, size: complete ? decoded.length : undefined };
  } catch {
    // Not decodable as labelled: record the bytes as they came.
    return { bytes, size: complete ? bytes.length : undefined };
  }
}

const BINARY_TYPE = /^(image|audio|video|font)\/|^application\/(octet-stream|wasm|zip|gzip|pdf|x-protobuf)/i;

/** True for content types whose bytes make no sense as text in a record. */
export function isBinaryContentType(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && BINARY_TYPE.test(value.trim());
}
