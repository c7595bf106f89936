import { MnemosError } from '../../../domain/errors.ts';
import { str } from './options.ts';
import type { AuditProgress, AuditReport } from '../../../services/audit-verify.ts';
import type { Status } from '../../../services/status.ts';
import { reportedFailure, type Command, type CommandContext } from '../command.ts';
import { progressLine } from '../progress-line.ts';

export const statusCmd: Command = {
  name: 'status',
  needsExistingStore: true,
  usage: 'status',
  summary: 'counts by type and lifecycle, store size, schema version',
  async run(ctx) {
    return (await ctx.open()).status();
  },
  human: (s: Status) =>
    [
      `store      ${s.backend} ${s.location} (schema v${s.schemaVersion}, ${s.memories.bytes === null ? '?' : (s.memories.bytes / 1024).toFixed(0) + ' KiB'})`,
      `namespace  ${s.namespace}`,
      `memories   ${s.memories.total} current, ${s.memories.superseded} superseded versions, ${s.memories.auditEntries} audit entries`,
      `by type    ${Object.entries(s.memories.byType).map(([k, v]) => `${k} ${v}`).join(', ') || '-'}`,
      `lifecycle  ${Object.entries(s.memories.byLifecycle).map(([k, v]) => `${k} ${v}`).join(', ') || '-'}`,
      `vectors    ${vectorLine(s)}`,
    ].join('\n'),
};

function vectorLine(s: Status): string {
  const e = s.embeddings;
  if (!e.model) return `none (embeddings ${e.provider === 'off' ? 'off' : `${e.provider}: unavailable, the self_state tool says why`})`;
  const learned = e.learned === false ? ', not trained yet: word pieces only until a consolidation trains it' : '';
  // Out of what searches consider: an archived merge loser carries no vector and a backfill gives it none.
  const scope = e.searchable === s.memories.total ? '' : ' searches consider (archived and expired ones need none)';
  return `${e.vectors} of ${e.searchable} memories${scope}, ${e.provider} model ${e.model}${learned}`;
}

const verify: Command = {
  name: 'verify',
  needsExistingStore: true,
  usage: 'verify [--expect-head seq:hash]',
  summary: 'check the audit hash chain and every memory against it',
  options: { 'expect-head': { type: 'string' } },
  async run(ctx) {
    const onProgress = auditProgress(ctx);
    const head = str(ctx, 'expect-head');
    const m = /^(\d+):([0-9a-f]{64})$/.exec(head ?? '');
    if (head !== undefined && !m) throw new MnemosError('validation_failed', '--expect-head takes seq:hash as an earlier audit verify printed it (e.g. 1042:9f86d0...)', { field: 'expect-head' });
    const report = await (await ctx.open()).verifyAudit({ ...(onProgress ? { onProgress } : {}), ...(m ? { expectHead: { seq: Number(m[1]), hash: m[2]! } } : {}) });
    if (report.ok) return { ...report, exitCode: 0 };
    const found = `${report.problemsFound.chain} chain and ${report.problemsFound.memories} memory problem(s)`;
    return { ...report, exitCode: 8, error: reportedFailure('corrupt', `audit check failed: ${found} (listed in chainProblems and memoryProblems)`) };
  },
  human: (r: AuditReport) =>
    r.ok
      ? `audit log intact: ${r.entries} entries, ${r.memoriesChecked} memories of namespace ${r.namespace} checked (other namespaces: --namespace), head ${r.head ? `${r.head.seq}:${r.head.hash}` : '-'} (keep it: --expect-head ${r.head ? `${r.head.seq}:${r.head.hash}` : 'seq:hash'} shows later whether newest entries were cut off)`
      : [
          'AUDIT CHECK FAILED',
          ...r.chainProblems.map((p) => `  chain: ${p.message}`),
          ...r.memoryProblems.map((p) => `  memory: ${p.message}`),
          ...(r.problemsFound.chain + r.problemsFound.memories > r.chainProblems.length + r.memoryProblems.length
            ? [`  (${r.problemsFound.chain} chain and ${r.problemsFound.memories} memory problems in all; the first ${r.chainProblems.length + r.memoryProblems.length} are listed)`]
            : []),
        ].join('\n'),
};

/** On a terminal (not with --json), how far the check got (a million memories take 15 s or so). */
function auditProgress(ctx: CommandContext): ((x: AuditProgress) => void) | undefined {
  const line = progressLine(ctx);
  if (!line) return undefined;
  return (x) => (x.phase === 'done' ? line.clear() : line.show(`checking ${x.phase === 'chain' ? `audit entries ${x.done}/${x.total}` : `memories ${x.done}`}`));
}

export const audit: Command = {
  name: 'audit',
  usage: 'audit verify',
  summary: 'audit log tools',
  subcommands: [verify],
  async run() {
    return undefined;
  },
};
