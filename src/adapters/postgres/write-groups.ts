/**
 * Group commit for one process's writes to PostgreSQL.
 *
 * Every write takes the audit chain's head row lock and keeps it until its
 * COMMIT has reached disk, so writers queue one behind another and each pays
 * a WAL flush of its own: about 190 single-memory writes/s on this machine,
 * each waiting writer also holding a pooled connection that searches then
 * lack. Here, writes that arrive while a transaction is running wait for the
 * next one and share it: each caller's ops run under a savepoint of their own
 * (a caller's error undoes only its ops and reaches only that caller), and
 * every caller's promise settles only after the shared COMMIT. A caller alone
 * gets a transaction of its own, as before.
 */
export interface GroupMember<I, R> {
  item: I;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/** Each member's result or error, in the order given; throwing fails the whole group (after the runner's own retries). */
export type GroupRunner<I, R> = (items: I[]) => Promise<({ ok: R } | { error: unknown })[]>;

export class WriteGroups<I, R> {
  private queue: GroupMember<I, R>[] = [];
  private running = false;
  /** Transactions run and writes carried so far (status and tests). */
  readonly stats = { groups: 0, members: 0 };

  /**
   * @param size how much a member weighs toward `maxWeight` (e.g. its ops),
   *   so one group's transaction, and the lock it holds, stays short.
   * @param maxMembers members per group at most. Each member's savepoint is a
   *   subtransaction, and past 64 of them in one transaction PostgreSQL's
   *   snapshots of every other session overflow their subtransaction cache
   *   and slow down.
   */
  constructor(
    private readonly run: GroupRunner<I, R>,
    private readonly size: (item: I) => number,
    private readonly maxWeight = 5_000,
    private readonly maxMembers = 32,
  ) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.running || this.queue.length === 0) return;
    let weight = 0;
    let n = 0;
    // At least one member, however heavy; then as many as fit.
    while (n < this.queue.length && n < this.maxMembers && (n === 0 || weight + this.size(this.queue[n]!.item) <= this.maxWeight)) weight += this.size(this.queue[n++]!.item);
    const group = this.queue.splice(0, n);
    this.running = true;
    this.stats.groups++;
    this.stats.members += n;
    this.run(group.map((m) => m.item))
      .then(
        (outcomes) =>
          group.forEach((m, i) => {
            const o = outcomes[i]!;
            if ('ok' in o) m.resolve(o.ok);
            else m.reject(o.error);
          }),
        (err) => group.forEach((m) => m.reject(err)),
      )
      .finally(() => {
        this.running = false;
        this.next();
      });
  }
}
