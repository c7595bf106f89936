import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMnemosError } from '../../domain/errors.ts';
import { inputJsonSchema } from '../tools/json-schema.ts';
import { errorForCaller, storeLocationOf } from '../tools/redact-location.ts';
import { findTool, runTool, toolsFor } from '../tools/run-tool.ts';
import type { Tool, ToolContext } from '../tools/tool.ts';
import type { PendingCalls } from './pending-calls.ts';

export const SERVER_INFO = { name: 'mnemos', version: '0.1.0' };

const INSTRUCTIONS =
  'Mnemos is your long-term memory. Search before answering questions about prior work (memory_search, then memory_get for exact lines); save what is worth keeping with working_memory_note; forget and edit are two-step (preview, then confirm with the token). Call self_state before claiming a part is running.';

/**
 * An MCP server exposing the tool registry for one caller. Tool failures come
 * back as tool results with isError and the MnemosError code, so the model
 * sees why (e.g. which field failed validation) and can correct itself;
 * a non-owner's errors do not name the store's location (redact-location.ts).
 * `pending`, when given, counts the calls in flight (a stdio session waits for
 * them before it closes the store).
 */
export function buildMcpServer(tools: readonly Tool[], ctx: ToolContext, log: (line: string) => void, pending?: PendingCalls): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const visible = toolsFor(tools, ctx.memory.principal.role);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: visible.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: inputJsonSchema(t.input) as { type: 'object'; [k: string]: unknown },
      annotations: { readOnlyHint: !!t.readOnly, destructiveHint: t.name === 'memory_forget' },
    })),
  }));
  const callTool = async (params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult> => {
    try {
      const result = await runTool(findTool(tools, params.name, ctx.memory.principal.role), params.arguments ?? {}, ctx);
      return { content: [{ type: 'text', text: JSON.stringify(result, null, 1) }] };
    } catch (err) {
      const e = errorForCaller(toMnemosError(err), storeLocationOf(ctx.memory), ctx.memory.principal.role);
      if (e.code === 'internal') log(`mcp tool ${params.name} failed: ${(err as Error).stack ?? e.message}`);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: e.toJSON() }) }] };
    }
  };
  server.setRequestHandler(CallToolRequestSchema, (req) => (pending ? pending.run(() => callTool(req.params)) : callTool(req.params)));
  return server;
}
