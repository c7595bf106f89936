import { MnemosError } from '../../../domain/errors.ts';
import { ROLES, type Role } from '../../../domain/principal.ts';
import type { TokenRecord } from '../../../ports/store.ts';
import type { CreatedToken } from '../../../services/tokens.ts';
import type { Command } from '../command.ts';
import { positional, shortTime, str } from './options.ts';

const create: Command = {
  name: 'create',
  usage: 'create --role owner|guest|agent [--namespace n] [--label l] [--agent id] [--id principal]',
  summary: 'create a bearer token (the secret is shown once; only its hash is stored)',
  options: { role: { type: 'string' }, label: { type: 'string' }, agent: { type: 'string' }, id: { type: 'string' } },
  async run(ctx) {
    const role = str(ctx, 'role');
    if (!role || !(ROLES as readonly string[]).includes(role)) throw new MnemosError('validation_failed', `--role must be one of ${ROLES.join(', ')}`, { field: 'role' });
    const m = await ctx.open();
    return m.createToken({
      role: role as Role,
      ...(str(ctx, 'label') ? { label: str(ctx, 'label')! } : {}),
      ...(str(ctx, 'agent') ? { agentId: str(ctx, 'agent')! } : {}),
      ...(str(ctx, 'id') ? { principalId: str(ctx, 'id')! } : {}),
    });
  },
  human: (r: CreatedToken) =>
    [
      `created ${r.record.role} token ${r.record.id} for namespace "${r.record.namespace}"${r.record.label ? ` (${r.record.label})` : ''}`,
      '',
      `  ${r.token}`,
      '',
      'This secret is shown once; Mnemos keeps only its hash. Send it as "Authorization: Bearer <token>".',
    ].join('\n'),
};

const list: Command = {
  name: 'list',
  needsExistingStore: true,
  usage: 'list',
  summary: 'tokens of the namespace (never the secrets)',
  async run(ctx) {
    return { tokens: await (await ctx.open()).listTokens() };
  },
  human: (r: { tokens: TokenRecord[] }) =>
    r.tokens.length === 0
      ? 'no tokens'
      : r.tokens
          .map((t) => `${t.id}  ${t.role.padEnd(5)}  as ${t.principalId}${t.agentId ? ` agent ${t.agentId}` : ''}  ${shortTime(t.createdAt)}  ${t.revokedAt ? `REVOKED ${shortTime(t.revokedAt)}` : 'active'}  ${t.label ?? ''}`)
          .join('\n'),
};

const revoke: Command = {
  name: 'revoke',
  // The token it revokes must exist: a missing store file is a typo.
  needsExistingStore: true,
  usage: 'revoke <id>',
  summary: 'revoke a token at once',
  async run(ctx) {
    return (await ctx.open()).revokeToken(positional(ctx, 0, 'id'));
  },
  human: (t: TokenRecord) => `revoked ${t.id} (${t.role}${t.label ? `, ${t.label}` : ''})`,
};

export const token: Command = {
  name: 'token',
  usage: 'token <create|list|revoke>',
  summary: 'bearer tokens for the HTTP API and MCP',
  subcommands: [create, list, revoke],
  async run() {
    return undefined;
  },
};
