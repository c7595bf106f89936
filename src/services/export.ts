import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { factLine, pendingLine, tombstoneLine } from './export-records.ts';

const PAGE = 1000;

/**
 * Writes every stored version (superseded and archived ones too) as one JSON
 * object per line, in id order, then, for the namespace's owner, the
 * canonical ledger's facts and pending changes (every status, id order) and
 * the tombstones of forgotten memories (lineage order; hashes and ids, never
 * text) as records of their own (export-records.ts), all from one snapshot of
 * the store (writes made meanwhile are not in it). Importing the output into
 * an empty store and exporting again gives the same bytes. A guest's or
 * agent's export holds the memories it can read and nothing else, as before.
 * Returns the number of memory versions written.
 */
export async function exportJsonl(ctx: ServiceContext, p: Principal, write: (line: string) => void | Promise<void>): Promise<number> {
  return ctx.store.snapshot(async (scan, reads) => {
    let after: string | null = null;
    let n = 0;
    for (;;) {
      const page = await scan(p, after, PAGE);
      if (page.length === 0) break;
      for (const m of page) {
        await write(`${JSON.stringify(m)}\n`);
        n++;
      }
      after = page[page.length - 1]!.id;
    }
    await pages((a) => reads.ledgerFacts(p, a, PAGE), (f) => f.id, (f) => write(factLine(f)));
    await pages((a) => reads.ledgerPending(p, a, PAGE), (q) => q.id, (q) => write(pendingLine({ ...q, namespace: p.namespace })));
    await pages((a) => reads.tombstones(p, a, PAGE), (t) => t.lineageId, (t) => write(tombstoneLine(t)));
    return n;
  });
}

/** Every page of one snapshot read, in order, each item written before the next page is read. */
async function pages<T>(read: (after: string | null) => Promise<T[]>, idOf: (x: T) => string, each: (x: T) => void | Promise<void>): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const page = await read(after);
    if (page.length === 0) return;
    for (const x of page) await each(x);
    after = idOf(page[page.length - 1]!);
  }
}
