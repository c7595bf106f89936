import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';

const PAGE = 1000;

/**
 * Writes every stored version (superseded and archived ones too) as one JSON
 * object per line, in id order, from one snapshot of the store (writes made
 * meanwhile are not in it). Importing the output into an empty store and
 * exporting again gives the same bytes.
 */
export async function exportJsonl(ctx: ServiceContext, p: Principal, write: (line: string) => void | Promise<void>): Promise<number> {
  return ctx.store.snapshot(async (scan) => {
    let after: string | null = null;
    let n = 0;
    for (;;) {
      const page = await scan(p, after, PAGE);
      if (page.length === 0) return n;
      for (const m of page) {
        await write(`${JSON.stringify(m)}\n`);
        n++;
      }
      after = page[page.length - 1]!.id;
    }
  });
}
