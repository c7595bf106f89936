/**
 * Counts the MCP requests whose handlers are still running, so a stdio session
 * that is ending (stdin closed, SIGTERM) can let them finish and answer before
 * the store closes. Closing first failed every call still in flight (the pool
 * or database already closed) and dropped its reply.
 */
export class PendingCalls {
  private running = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.running;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      if (--this.running === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Resolves once nothing runs, and after the replies of what ran were written (the SDK sends them a tick later). */
  async idle(): Promise<void> {
    if (this.running > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
