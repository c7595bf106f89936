/**
 * The name, usage and summary of the commands whose modules the CLI imports
 * only when one of them is run (commands/index.ts): the benchmarks, the
 * journal with PLN, the cognitive cycle. Those modules load about 40 modules
 * that no other command needs, so every other command starts without them.
 * Each command module spreads its head from here, so the top-level help
 * (which shows only these) and the command itself cannot disagree.
 */
export interface CommandHead {
  name: string;
  usage: string;
  summary: string;
}

export const BENCH_HEAD: CommandHead = { name: 'bench', usage: 'bench <ingest|...>', summary: 'benchmarks: print figures and update docs/BENCHMARKS.md' };

export const CYCLE_HEAD: CommandHead = { name: 'cycle', usage: 'cycle run <scenario.jsonl>', summary: 'the cognitive cycle (blackboard, salience, sleep consolidation)' };

export const EPISODES_HEAD: CommandHead = {
  name: 'episodes',
  usage: 'episodes [--min-salience x] [--since iso] [--label SafetyAudit] [--limit n]',
  summary: 'persisted episodes, by salience',
};

export const JOURNAL_HEAD: CommandHead = {
  name: 'journal',
  usage: 'journal <validate|append|query|view|derive|export>',
  summary: 'the MeTTa memory journal: validate, append, query, views, PLN derive and exports',
};
