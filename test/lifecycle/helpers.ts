import { openMemory, type Mnemos } from '../../src/index.ts';
import type { LifecycleConfig } from '../../src/lifecycle/config.ts';
import type { LedgerFact } from '../../src/lifecycle/ledger-rules.ts';
import { testStores } from '../helpers/backend.ts';

/** A fresh store on the selected backend (and a temp dir) with a clock the test moves by hand. */
export async function lifecycleStore(opts: { start?: string; lifecycle?: Partial<LifecycleConfig> } = {}) {
  const { dir, db, cleanup } = testStores('mnemos-lifecycle-');
  // Real time by default: preview tokens expire against the wall clock.
  const clock = { t: opts.start ? Date.parse(opts.start) : Date.now() };
  const m: Mnemos = await openMemory({ db, now: () => clock.t, ...(opts.lifecycle ? { lifecycle: opts.lifecycle } : {}) });
  return {
    m,
    db,
    dir,
    clock,
    advance(ms: number) {
      clock.t += ms;
    },
    async close() {
      try {
        await m.close();
      } finally {
        await cleanup();
      }
    },
  };
}

export const MIN = 60_000;
export const DAY = 86_400_000;

/** A learned, active ledger fact for rule tests (no store): the key doubles as the id unless `over` says otherwise. */
export function ledgerFact(key: string, over: Partial<LedgerFact> = {}): LedgerFact {
  return {
    id: key, key, value: `${key} value`, statement: '', category: 'general', confidence: 0.7, mentions: 1, source: 'learned', status: 'active',
    validFrom: '2026-01-01T00:00:00Z', validUntil: null, supersededBy: null, updatedAt: '2026-01-01T00:00:00Z', namespace: 'n', ownerId: 'o', agentId: null, visibility: 'owner', ...over,
  };
}
