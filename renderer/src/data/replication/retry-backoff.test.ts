import { describe, expect, it } from 'vitest';
import { RetryBackoff } from './retry-backoff';

describe('retry backoff of the replication', () => {
  it('doubles the wait per consecutive failure up to the cap, with jitter, and starts over after a success', () => {
    const backoff = new RetryBackoff(1_000, 8_000, () => 1);
    expect(backoff.delayMs()).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      backoff.failed();
      waits.push(backoff.delayMs());
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    const jittered = new RetryBackoff(1_000, 8_000, () => 0);
    jittered.failed();
    jittered.failed();
    expect(jittered.delayMs()).toBe(1_000);
    backoff.succeeded();
    expect(backoff.delayMs()).toBe(0);
  });

  it('ends a wait at once when the connection is back', async () => {
    const backoff = new RetryBackoff(60_000, 60_000, () => 1);
    backoff.failed();
    // Without the wake this would outlast the test's timeout.
    const waiting = backoff.wait();
    setTimeout(() => backoff.wake(), 10);
    await waiting;
    expect(backoff.delayMs()).toBe(0);
  });

  it('counts the outcome of each attempt', async () => {
    const backoff = new RetryBackoff(5, 100, () => 1);
    await expect(backoff.run(() => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(backoff.delayMs()).toBe(5);
    expect(await backoff.run(async () => 'ok')).toBe('ok');
    expect(backoff.delayMs()).toBe(0);
  });
});
