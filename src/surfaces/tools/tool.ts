import type { z } from 'zod';
import type { PartReport } from '../../services/self-state.ts';
import type { Mnemos } from '../library/open-memory.ts';

/** What a tool handler gets besides its input: the facade bound to the caller, and what the surface knows. */
export interface ToolContext {
  memory: Mnemos;
  /** Parts only the serving surface knows about (transports, auth), for self_state. */
  surfaceParts: PartReport[];
}

/**
 * One agent tool = one small module exporting a Tool. MCP tools, the HTTP
 * routes `POST /v1/tools/<name>` and the OpenAPI document are all generated
 * from the registry (index.ts), so a later issue adds a tool by adding a
 * module and one line there. Handlers only call the facade.
 */
export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Written for an LLM: when to call it, what comes back. */
  description: string;
  input: S;
  /** Only an owner may call it; the registry refuses others with 403 before the handler runs. */
  ownerOnly?: boolean;
  /** True when the tool changes nothing (MCP readOnlyHint). */
  readOnly?: boolean;
  run(input: z.output<S>, ctx: ToolContext): Promise<unknown>;
}

/** Keeps the handler's input type tied to its schema. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}
