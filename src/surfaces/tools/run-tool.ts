import { MnemosError } from '../../domain/errors.ts';
import { withArticle, type Principal } from '../../domain/principal.ts';
import { parseInput } from '../../services/validate.ts';
import type { Tool, ToolContext } from './tool.ts';

/**
 * The tool of that name. An unknown name is refused listing the tools the
 * caller may use: given the caller's role, the owner-only ones are left out
 * for others, as tools/list leaves them out (they were offered to a guest
 * here, only to be refused as forbidden).
 */
export function findTool(tools: readonly Tool[], name: string, role?: Principal['role']): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const usable = role === undefined ? tools : toolsFor(tools, role);
    throw new MnemosError('not_found', `unknown tool "${name}"; available: ${usable.map((t) => t.name).join(', ')}`, { field: 'name' });
  }
  return tool;
}

/** The tools a caller of this role may call: the owner-only ones are for the owner. */
export function toolsFor(tools: readonly Tool[], role: Principal['role']): readonly Tool[] {
  return tools.filter((t) => !t.ownerOnly || role === 'owner');
}

/** The one path every surface uses to call a tool: scope check, validation naming the field, then the handler. */
export async function runTool(tool: Tool, rawInput: unknown, ctx: ToolContext): Promise<unknown> {
  const p = ctx.memory.principal;
  if (tool.ownerOnly && p.role !== 'owner') throw new MnemosError('forbidden', `${tool.name} is for the owner only; this token is ${withArticle(p.role)} token`, { tool: tool.name });
  // No input at all is an empty object (an MCP call of a tool without arguments); a JSON null is not one.
  const input = parseInput(tool.input, rawInput === undefined ? {} : rawInput, `${tool.name} input`);
  return tool.run(input, ctx);
}
