import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Mnemos } from '../library/open-memory.ts';
import type { PartReport } from '../../services/self-state.ts';
import { TOOLS } from '../tools/index.ts';
import { buildMcpServer } from './mcp-server.ts';

/**
 * MCP over stdio. stdout carries protocol messages only; every log line goes
 * to `log` (stderr). Resolves when the client closes the stream.
 */
export async function serveStdio(memory: Mnemos, log: (line: string) => void, extraParts: PartReport[] = []): Promise<void> {
  const parts = [{ part: 'mcp_stdio', state: 'on' as const, why: `serving MCP on stdio as ${memory.principal.role} "${memory.principal.id}"`, setting: null }, ...extraParts];
  const server = buildMcpServer(TOOLS, { memory, surfaceParts: parts }, log);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  log(`mnemos mcp: serving on stdio as ${memory.principal.role} "${memory.principal.id}" (namespace ${memory.principal.namespace})`);
  await closed;
  await server.close();
}
