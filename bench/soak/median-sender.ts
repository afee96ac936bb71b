/**
 * Tool calls sent the way Median sends them: a signed POST (SPEC §1.1, over
 * the exact body bytes, freshly timestamped on every attempt) to the public
 * tunnel URL. "DNS" is the loopback tunnel server: every request goes to
 * 127.0.0.1:<its port> with `Host: <tunnel hostname>`. One keep-alive agent
 * (bounded sockets) so 100,000 calls do not cost 100,000 connections.
 */
import { Agent, request } from 'node:http';
import { SIGNATURE_HEADER, signBody, type ToolCall } from '../../src/median/index.js';

export interface SoakCall {
  toolCallId: string;
  conversationId: string;
  orderNumber: string;
}

/** Where a failure came from, judged by the answer's shape. */
export type FailureSource = 'tunnel-server' | 'daemon-or-route' | 'transport' | 'timeout';

export type AttemptOutcome =
  | { kind: 'answered'; status: number; latencyMs: number; isWellFormed: boolean }
  | { kind: 'failed'; source: FailureSource; status: number | null; reason: string; latencyMs: number };

export interface MedianSender {
  /** One attempt at `call` on `<publicUrl>` (e.g. https://x.lt.median.test/api/median). */
  send(publicUrl: URL, call: SoakCall): Promise<AttemptOutcome>;
  close(): void;
}

const MAX_ANSWER_BYTES = 100 * 1024;

function bodyOf(call: SoakCall): Buffer {
  const toolCall: ToolCall = {
    tool: 'orderStatus',
    toolCallId: call.toolCallId,
    input: { orderNumber: call.orderNumber },
    context: { conversationId: call.conversationId, risk: 'low', visitor: { verified: false } },
  };
  return Buffer.from(JSON.stringify(toolCall), 'utf8');
}

/** What a non-2xx answer says about who answered (the tunnel server's errors are plain strings). */
function judgeFailure(status: number, text: string): { source: FailureSource; reason: string } {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') {
      const what = /no tunnel is registered/.test(body.error)
        ? 'no tunnel for this hostname'
        : /no free connection/.test(body.error)
          ? 'no free tunnel connection'
          : /did not answer/.test(body.error)
            ? 'tunnel did not answer'
            : body.error.slice(0, 60);
      return { source: 'tunnel-server', reason: `${status} ${what}` };
    }
    const code = (body.error as { code?: unknown } | undefined)?.code;
    return { source: 'daemon-or-route', reason: `${status} ${typeof code === 'string' ? code : 'unknown'}` };
  } catch {
    return { source: 'daemon-or-route', reason: `${status} (not JSON)` };
  }
}

export function createMedianSender(options: { tunnelServerPort: number; secret: Uint8Array; timeoutMs: number; maxSockets: number }): MedianSender {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets });
  return {
    send(publicUrl, call) {
      const body = bodyOf(call);
      const started = performance.now();
      const latency = (): number => performance.now() - started;
      return new Promise<AttemptOutcome>((resolve) => {
        let isSettled = false;
        const settle = (outcome: AttemptOutcome): void => {
          if (isSettled) return;
          isSettled = true;
          clearTimeout(timer);
          resolve(outcome);
        };
        const req = request(
          {
            host: '127.0.0.1',
            port: options.tunnelServerPort,
            method: 'POST',
            path: `${publicUrl.pathname}${publicUrl.search}`,
            agent,
            headers: {
              host: publicUrl.host,
              'content-type': 'application/json',
              accept: 'application/json',
              'content-length': String(body.length),
              'user-agent': 'Median/1.0 (median-dev soak)',
              [SIGNATURE_HEADER]: signBody(options.secret, body, Date.now()),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
            });
            res.once('error', (error: NodeJS.ErrnoException) =>
              settle({ kind: 'failed', source: 'transport', status: res.statusCode ?? null, reason: `answer cut: ${error.code ?? error.message}`, latencyMs: latency() }),
            );
            res.once('aborted', () => settle({ kind: 'failed', source: 'transport', status: res.statusCode ?? null, reason: 'answer cut: aborted', latencyMs: latency() }));
            res.once('end', () => {
              const status = res.statusCode ?? 0;
              const text = Buffer.concat(chunks).toString('utf8');
              if (status >= 200 && status < 300) {
                let isWellFormed = false;
                try {
                  const answer = JSON.parse(text) as { result?: { orderNumber?: unknown } };
                  isWellFormed = answer.result?.orderNumber === call.orderNumber;
                } catch {
                  // not JSON: answered, but not the way the route answers
                }
                settle({ kind: 'answered', status, latencyMs: latency(), isWellFormed });
              } else {
                settle({ kind: 'failed', status, ...judgeFailure(status, text), latencyMs: latency() });
              }
            });
          },
        );
        const timer = setTimeout(() => {
          req.destroy();
          settle({ kind: 'failed', source: 'timeout', status: null, reason: `no answer in ${options.timeoutMs} ms`, latencyMs: latency() });
        }, options.timeoutMs);
        req.once('error', (error: NodeJS.ErrnoException) =>
          settle({ kind: 'failed', source: 'transport', status: null, reason: error.code ?? error.message, latencyMs: latency() }),
        );
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
