import { describe, expect, it } from 'vitest';
import { createSerialQueue } from '../../../src/daemon/serial-queue.js';
import { MedianDevError } from '../../../src/shared/errors.js';

describe('createSerialQueue', () => {
  it('runs tasks one at a time, in the order they came', async () => {
    const queue = createSerialQueue(() => undefined);
    const log: string[] = [];
    /** A task that ends when the test releases it. */
    const task = (name: string) => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      return {
        release,
        run: async () => {
          log.push(`${name} start`);
          await gate;
          log.push(`${name} end`);
        },
      };
    };
    const [a, b, c] = [task('a'), task('b'), task('c')];
    const all = Promise.all([queue.push(a.run), queue.push(b.run), queue.run(c.run)]);
    // b and c are free to go, a is not: only a has started, however many turns pass.
    b.release();
    c.release();
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a start']);
    a.release();
    await all;
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it("hands a pushed task's error to onError and goes on; run() rejects with it instead", async () => {
    const errors: unknown[] = [];
    const queue = createSerialQueue((error) => errors.push(error));
    const boom = new MedianDevError('internal_error', 'boom');
    await queue.push(async () => {
      throw boom;
    });
    await expect(queue.run(async () => Promise.reject(boom))).rejects.toBe(boom);
    expect(await queue.run(async () => 42)).toBe(42);
    expect(errors).toEqual([boom]);
  });

  it('close() waits for the running task, drops the queued ones, and refuses new ones with a coded error', async () => {
    const errors: unknown[] = [];
    const queue = createSerialQueue((error) => errors.push(error));
    const ran: string[] = [];
    let release!: () => void;
    const running = queue.push(() => new Promise<void>((resolve) => (release = resolve)).then(() => void ran.push('running')));
    const dropped = queue.push(async () => void ran.push('dropped'));
    await new Promise((resolve) => setImmediate(resolve));
    const closing = queue.close();
    release();
    await closing;
    await Promise.all([running, dropped]);

    expect(ran).toEqual(['running']);
    expect(errors).toEqual([]);
    await expect(queue.run(async () => 1)).rejects.toBeInstanceOf(MedianDevError);
    await expect(queue.run(async () => 1)).rejects.toMatchObject({ code: 'daemon_closed' });
  });
});
