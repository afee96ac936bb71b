import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';

/** What the connect needs of an HTTP POST: the status and the body's text. */
export interface PostAnswer {
  status: number;
  text: string;
}

/** POSTs `body` to `url`; rejects when nothing answers (DNS, refused, TLS, `signal` aborted). */
export type MedianPost = (url: string, init: { headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<PostAnswer>;

/** More of an answer than this is not read: Median's connect answers are a few hundred bytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The connect's POST over node:http (node:https for an https URL, loaded on
 * its first use), not `fetch`: a Node server has node:http loaded already,
 * while the first `fetch` of a process loads and compiles undici (~35 ms on
 * a small machine), and the connect is on the path of every `median-dev
 * start`'s first sync. Redirects are not followed (Median's API answers its
 * connect without one); an answer past 1 MB is cut there.
 */
export const postWithNodeHttp: MedianPost = async (url, init) => {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  // A connection of its own (agent: false), closed after the answer: a connect is rare, and a kept-alive socket
  // the API closes meanwhile would fail the next one.
  const options: RequestOptions = { method: 'POST', headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) }, signal: init.signal, agent: false };
  return new Promise<PostAnswer>((resolve, reject) => {
    const req = request(target, options, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_ANSWER_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8') }));
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new Error('The answer was cut off.'));
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
};

/** A `fetch` (given in the route's options) as a MedianPost. */
export function postWithFetch(fetchFn: typeof fetch): MedianPost {
  return async (url, init) => {
    const response = await fetchFn(url, { method: 'POST', headers: init.headers, body: init.body, signal: init.signal });
    return { status: response.status, text: await response.text() };
  };
}
