import { AUTONOMOUS_WRITES_DISABLED } from '../journal/bridge.ts';
import type { ServiceContext } from './context.ts';
import { journalPathOf } from './journal-reads.ts';
import type { PartReport } from './self-state.ts';

/**
 * self_state parts for the MeTTa journal's agent bridge: the two read flags
 * (default off) and autonomous writes, which are off and cannot be switched
 * on in this version. Reports config only; it never touches the journal file.
 */
export function journalBridgeParts(ctx: ServiceContext, namespace: string): PartReport[] {
  const flags = ctx.config.journalBridge ?? {};
  const path = journalPathOf(ctx, namespace, { inPlace: true });
  const read = (part: string, on: boolean, what: string, key: string): PartReport => ({
    part,
    state: on ? 'on' : 'off',
    why: on ? `agents get a bounded, read-only ${what} of the journal ${path}` : `${what} reads of the journal ${path} are off by default (the bridge returns an empty fragment)`,
    setting: `config journalBridge.${key}: ${on ? 'false' : 'true'}`,
  });
  return [
    read('journal_prompt_view', flags.promptViewReads === true, 'prompt view', 'promptViewReads'),
    read('journal_index_view', flags.indexViewReads === true, 'MM-index view', 'indexViewReads'),
    { part: 'journal_autonomous_writes', state: 'off', why: AUTONOMOUS_WRITES_DISABLED, setting: null },
  ];
}
