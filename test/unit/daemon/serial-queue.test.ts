import { describe, expect, it } from 'vitest';
import { createSerialQueue } from '../../../src/daemon/serial-queue.js';
import { MedianDevError } from '../../../src/shared/errors.js';

describe('createSerialQueue', () => {
  it('runs tasks one at a time, in the order they came', async () => {
    const queue = createSerialQueue(() => undefined);
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`${name} end`);
    };
    await Promise.all([queue.push(task('a', 20)), queue.push(task('b', 1)), queue.run(task('c', 1))]);
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
