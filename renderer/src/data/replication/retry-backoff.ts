/**
 * Exponential backoff between retries of a failing pull or push: `baseMs`, doubled per consecutive
 * failure up to `maxMs`, with jitter so that many clients do not retry in step. `wake()` ends the
 * current wait (the connection is back).
 */
export class RetryBackoff {
  private failures = 0;
  private waking = new Set<() => void>();
  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** How long the next attempt waits (0 after a success). */
  delayMs(): number {
    if (this.failures === 0) return 0;
    const exponential = Math.min(this.baseMs * 2 ** (this.failures - 1), this.maxMs);
    return Math.round(exponential * (0.5 + this.random() / 2));
  }

  wait(): Promise<void> {
    const ms = this.delayMs();
    if (ms === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waking.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waking.add(done);
    });
  }

  succeeded(): void {
    this.failures = 0;
  }

  failed(): void {
    this.failures += 1;
  }

  wake(): void {
    this.failures = 0;
    for (const done of [...this.waking]) done();
  }

  /** Runs `attempt` after the current wait, counting its outcome. */
  async run<T>(attempt: () => Promise<T>): Promise<T> {
    await this.wait();
    try {
      const result = await attempt();
      this.succeeded();
      return result;
    } catch (error) {
      this.failed();
      throw error;
    }
  }
}
