import { z } from 'zod';

/**
 * JSON Schema of a zod input schema, as callers must send it ("input" side:
 * fields with defaults are optional). MCP tool listings and the OpenAPI
 * document both use this, so they describe exactly what validation accepts.
 */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}
