import { z } from 'zod';
import { LEDGER_CATEGORIES } from '../../lifecycle/ledger-rules.ts';
import { storable } from '../../services/validate.ts';
import { defineTool } from './tool.ts';

type PinAction = 'pin' | 'list' | 'get' | 'retire' | 'confirm' | 'reject';
type PinField = 'key' | 'value' | 'statement' | 'category' | 'id';

/**
 * The fields each action reads. Any other field was dropped without a word: `list {key}` listed every
 * fact as if filtered, and `get {key, id}` answered the id's fact whatever the key said.
 */
const TAKES: Record<PinAction, readonly PinField[]> = {
  pin: ['key', 'value', 'statement', 'category'],
  list: [],
  get: ['key', 'id'],
  retire: ['key', 'id'],
  confirm: ['id'],
  reject: ['id'],
};

function takesNothingElse(v: { action: PinAction } & Partial<Record<PinField, unknown>>, ctx: z.RefinementCtx): void {
  const takes = TAKES[v.action];
  for (const field of ['key', 'value', 'statement', 'category', 'id'] as const) {
    if (v[field] === undefined || takes.includes(field)) continue;
    const hint = v.action === 'list' ? ' (list shows every fact you can see; read one with get {key})' : `; it takes ${takes.join(', ')}`;
    ctx.addIssue({ code: 'custom', path: [field], message: `${v.action} does not take ${field}${hint}` });
  }
  if ((v.action === 'get' || v.action === 'retire') && v.key !== undefined && v.id !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['id'], message: `${v.action} takes key or id, not both` });
  }
}

export const memoryPin = defineTool({
  name: 'memory_pin',
  description:
    'Settled facts in the canonical ledger. action "pin" {key, value, statement?, category?} records a correction or settled fact (an agent pin has confidence 0.95 and outranks anything learned in the background; replacing a fact the owner pinned waits for the owner\'s confirmation). "list" shows facts best first with pending changes; "get" {key or id}; "retire" {key or id}; "confirm" {id} applies a pending change, "reject" {id} drops it (owner only). Keys look like user.home_city: lower-case letters, digits, . _ -.',
  input: z
    .object({
      action: z.enum(['pin', 'list', 'get', 'retire', 'confirm', 'reject']).describe('what to do'),
      key: storable(z.string().min(1).max(64)).optional().describe('fact key, e.g. user.home_city (pin, get, retire)'),
      value: z.string().min(1).max(500).optional().describe('the fact value, at most 500 characters (pin)'),
      statement: z.string().max(300).optional().describe('the fact as one sentence, at most 300 characters (pin)'),
      category: z.enum(LEDGER_CATEGORIES).optional().describe('identity, project, infra, preference, relationship or general (pin)'),
      id: storable(z.string().min(1).max(64)).optional().describe('fact id (get, retire) or pending change id (confirm, reject)'),
    })
    .strict()
    .refine((v) => v.action !== 'pin' || (v.key !== undefined && v.value !== undefined), { message: 'pin needs key and value', path: ['key'] })
    .refine((v) => !['get', 'retire'].includes(v.action) || v.key !== undefined || v.id !== undefined, { message: 'give key or id', path: ['key'] })
    .refine((v) => !['confirm', 'reject'].includes(v.action) || v.id !== undefined, { message: 'confirm and reject need the pending change id', path: ['id'] })
    .superRefine(takesNothingElse),
  async run(q, { memory }) {
    const l = memory.lifecycle;
    switch (q.action) {
      case 'pin':
        return l.pin({ key: q.key!, value: q.value!, ...(q.statement !== undefined ? { statement: q.statement } : {}), ...(q.category ? { category: q.category } : {}) });
      case 'list':
        return l.facts();
      case 'get':
        return l.fact(q.id ?? q.key!);
      case 'retire':
        return l.retire(q.id ?? q.key!);
      case 'confirm':
        return l.confirmPin(q.id!);
      // A pending change confirm answers `conflict` for (its target replaced since) could only be dropped from the CLI.
      case 'reject':
        return l.rejectPin(q.id!);
    }
  },
});
