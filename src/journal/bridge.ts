import { MnemosError } from '../domain/errors.ts';
import type { MemoryCluster } from './cluster.ts';
import { str, sym, type MettaAtom } from './metta/ast.ts';
import { printAtom } from './metta/printer.ts';
import { isIdentifier } from './schema.ts';
import { JournalSnapshot } from './snapshot.ts';
import { indexView } from './views/index-view.ts';
import { promptView, type PromptViewOptions } from './views/prompt-view.ts';

/**
 * The agent-facing boundary (petta-memory's OmegaClaw bridge). Every flag is
 * default-safe: prompt-view and index-view reads are off (an empty fragment),
 * and autonomous writes are off and cannot be switched on in this version:
 * asking for them throws. Reads return a read-only MeTTa envelope around a
 * bounded view; the atoms are context and lookup hints, not new authority,
 * and nothing read here is ever written back.
 */

export interface BridgeFlags {
  promptViewReads?: boolean;
  indexViewReads?: boolean;
  /** Must stay false: there is no reviewed design for agents writing memory yet. */
  autonomousWrites?: boolean;
}

export interface BridgeOptions {
  /** Where clusters come from, read at each call (e.g. `() => journal.view()`). */
  source: () => JournalSnapshot | readonly MemoryCluster[];
  flags?: BridgeFlags;
  /** Clock for the generated-at stamp. */
  now?: () => Date;
  /** Symbol naming the source in the envelope. */
  sourceName?: string;
  promptViewId?: string;
  indexViewId?: string;
}

export const AUTONOMOUS_WRITES_DISABLED =
  'autonomous memory writes are disabled in this version and cannot be enabled: a design review must first define validation, provenance, failure handling, audit logging and rollback. Append through Journal.append from reviewed local code instead.';

export class AgentMemoryBridge {
  readonly flags: Readonly<Required<BridgeFlags>>;
  private readonly options: BridgeOptions;

  constructor(options: BridgeOptions) {
    const flags = options.flags ?? {};
    if (flags.autonomousWrites === true) throw new MnemosError('forbidden', AUTONOMOUS_WRITES_DISABLED, { flag: 'autonomousWrites' });
    for (const id of [options.promptViewId, options.indexViewId, options.sourceName]) {
      if (id !== undefined && !isIdentifier(id)) throw new MnemosError('validation_failed', `bridge name ${JSON.stringify(id)} is not a valid identifier`);
    }
    this.options = options;
    this.flags = Object.freeze({ promptViewReads: flags.promptViewReads === true, indexViewReads: flags.indexViewReads === true, autonomousWrites: false });
  }

  /** Bounded prompt atoms in a read-only envelope; '' while prompt-view reads are off. */
  promptViewMetta(options: PromptViewOptions = {}): string {
    if (!this.flags.promptViewReads) return '';
    const body = promptView(this.snapshot().clusters(), options);
    return this.envelope('OmegaClawPromptView', 'PromptView', this.options.promptViewId ?? 'oc-prompt-memory-view', body);
  }

  /** Bounded MM-index edges in a read-only envelope; '' while index-view reads are off. */
  indexViewMetta(options: { maxChars?: number } = {}): string {
    if (!this.flags.indexViewReads) return '';
    const body = indexView(this.snapshot(), { maxChars: options.maxChars });
    return this.envelope('OmegaClawIndexView', 'IndexView', this.options.indexViewId ?? 'oc-index-memory-view', body);
  }

  /** Always refuses: agents cannot write memory through the bridge in this version. */
  appendFromAgent(_cluster: MemoryCluster | string): never {
    throw new MnemosError('forbidden', AUTONOMOUS_WRITES_DISABLED, { flag: 'autonomousWrites' });
  }

  private snapshot(): JournalSnapshot {
    const s = this.options.source();
    return s instanceof JournalSnapshot ? s : JournalSnapshot.of(s);
  }

  private envelope(kind: string, prefix: string, id: string, body: string): string {
    const v = sym(id);
    const header: MettaAtom[] = [
      atom(kind, v),
      atom(`${prefix}Source`, v, sym(this.options.sourceName ?? 'petta-memory')),
      atom(`${prefix}Mode`, v, sym('read-only')),
      atom(`${prefix}GeneratedAt`, v, str((this.options.now ?? (() => new Date()))().toISOString())),
    ];
    return `;;; BEGIN ${kind} ${id}\n${header.map((a) => printAtom(a) + '\n').join('')}${body};;; END ${kind} ${id}\n`;
  }
}

function atom(head: string, ...args: MettaAtom[]): MettaAtom {
  return { kind: 'expr', items: [sym(head), ...args] };
}
