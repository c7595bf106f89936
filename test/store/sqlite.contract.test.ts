import { join } from 'node:path';
import { SqliteStore } from '../../src/adapters/sqlite/store.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { tempDir } from '../helpers/temp.ts';
import { runStoreContract } from './contract.ts';

runStoreContract('sqlite', async () => {
  const tmp = tempDir('mnemos-contract-');
  const store = SqliteStore.open({ path: join(tmp.dir, 'memory.db'), analyze });
  const one = (sql: string, ...params: unknown[]) => (store.db.prepare(sql).get(...params) as { n: number }).n;
  return {
    store,
    async rawCounts(lineageId, uniqueTerm) {
      return {
        memories: one('SELECT count(*) AS n FROM memories WHERE lineage_id = ?', lineageId),
        fullText: one('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?', `"${uniqueTerm}"`),
        pending: one('SELECT count(*) AS n FROM pending_changes WHERE subject_id = ?', lineageId),
      };
    },
    async rawVectorRows() {
      return one('SELECT count(*) AS n FROM memory_vectors');
    },
    async cleanup() {
      await store.close();
      tmp.cleanup();
    },
  };
});
