import { MnemosError } from '../../domain/errors.ts';
import { withArticle } from '../../domain/principal.ts';
import { parseInput } from '../../services/validate.ts';
import type { Tool, ToolContext } from './tool.ts';

export function findTool(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new MnemosError('not_found', `unknown tool "${name}"; available: ${tools.map((t) => t.name).join(', ')}`, { field: 'name' });
  return tool;
}

/** The one path every surface uses to call a tool: scope check, validation naming the field, then the handler. */
export async function runTool(tool: Tool, rawInput: unknown, ctx: ToolContext): Promise<unknown> {
  const p = ctx.memory.principal;
  if (tool.ownerOnly && p.role !== 'owner') throw new MnemosError('forbidden', `${tool.name} is for the owner only; this token is ${withArticle(p.role)} token`, { tool: tool.name });
  // No input at all is an empty object (an MCP call of a tool without arguments); a JSON null is not one.
  const input = parseInput(tool.input, rawInput === undefined ? {} : rawInput, `${tool.name} input`);
  return tool.run(input, ctx);
}
