import type { Mnemos } from '../library/open-memory.ts';
import type { PartReport } from '../../services/self-state.ts';
import { TOOLS } from '../tools/index.ts';
import { LineTransport } from './line-transport.ts';
import { buildMcpServer } from './mcp-server.ts';
import { PendingCalls } from './pending-calls.ts';

/**
 * MCP over stdio. stdout carries protocol messages only; every log line goes
 * to `log` (stderr). Resolves when the client closes the stream, or when
 * `stop` resolves (a signal: its value names it in the log). Either way the
 * calls already read run to the end and are answered before this resolves:
 * the caller closes the store next, and a client that writes its last
 * requests and closes stdin (the MCP way to end a stdio session) must not
 * lose them.
 */
export async function serveStdio(memory: Mnemos, log: (line: string) => void, extraParts: PartReport[] = [], stop?: Promise<string>): Promise<void> {
  const parts = [{ part: 'mcp_stdio', state: 'on' as const, why: `serving MCP on stdio as ${memory.principal.role} "${memory.principal.id}"`, setting: null }, ...extraParts];
  const pending = new PendingCalls();
  const server = buildMcpServer(TOOLS, { memory, surfaceParts: parts }, log, pending);
  const transport = new LineTransport(process.stdin, process.stdout, log);
  const ended = new Promise<string | null>((resolve) => {
    transport.onclose = () => resolve(null);
    process.stdin.once('end', () => resolve(null));
    void stop?.then(resolve);
  });
  await server.connect(transport);
  log(`mnemos mcp: serving on stdio as ${memory.principal.role} "${memory.principal.id}" (namespace ${memory.principal.namespace})`);
  const signal = await ended;
  // Read no more requests; the ones already read are running.
  process.stdin.pause();
  if (signal || pending.size > 0) log(`mnemos mcp: ${signal ?? 'stdin closed'}, finishing ${pending.size} call${pending.size === 1 ? '' : 's'} in flight`);
  await pending.idle();
  await server.close();
}
