import type { Context } from 'hono';
import { requestError } from '../tools/request-error.ts';
import { inputJsonSchema } from '../tools/json-schema.ts';
import type { Tool } from '../tools/tool.ts';
import { openApiPath, pathParams, type ToolRoute } from './routes.ts';

type JsonSchema = Record<string, unknown>;

export interface QueryParam {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/**
 * The query parameters a GET route takes: the fields of its tool's input
 * schema (the zod schema that validates the call), less the path's. Both the
 * request parsing below and /openapi.json read them from here, so the document
 * cannot list a parameter the route refuses, or leave out one it takes.
 */
export function queryParams(route: ToolRoute, tool: Tool): QueryParam[] {
  // Made once per route and tool: turning a zod schema into JSON Schema on every GET halved the
  // server's GET /v1/memories/:id rate (bench serve's floor phase, 1,937/s before, 972/s with it).
  let byTool = PARAMS.get(route);
  if (!byTool) PARAMS.set(route, (byTool = new WeakMap()));
  let params = byTool.get(tool);
  if (!params) byTool.set(tool, (params = paramsOf(route, tool)));
  return params;
}

const PARAMS = new WeakMap<ToolRoute, WeakMap<Tool, QueryParam[]>>();

function paramsOf(route: ToolRoute, tool: Tool): QueryParam[] {
  const schema = inputJsonSchema(tool.input);
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inPath = new Set(pathParams(route.path));
  return Object.keys(props)
    .filter((name) => !inPath.has(name) && (route.query === undefined || route.query.includes(name)))
    .map((name) => ({ name, schema: props[name]!, required: required.has(name) }));
}

/**
 * A GET route's tool input: the path parameters, and the query string read by
 * the type its schema gives each field (numbers and booleans are text in a
 * URL; an array field is the parameter repeated, OpenAPI's default form
 * style). A scalar given twice was silently read as its first value, and
 * `?id=` beside the path's id was dropped; both are refused, naming the
 * parameter, as is a parameter the route does not take.
 */
export function queryInput(c: Context, route: ToolRoute, tool: Tool): Record<string, unknown> {
  const params = c.req.param() as Record<string, string>;
  const known = new Map(queryParams(route, tool).map((q) => [q.name, q.schema]));
  const input: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (name in params) throw requestError('validation_failed', `${name} is given in the path (${c.req.path}); leave it out of the query string`, { field: name });
    const schema = known.get(name);
    if (!schema) {
      const takes = known.size > 0 ? `it takes ${[...known.keys()].join(', ')}` : 'it takes none';
      throw requestError('validation_failed', `unknown query parameter ${name} for GET ${openApiPath(route.path)}: ${takes} (see /openapi.json)`, { field: name });
    }
    if (schema.type === 'array') {
      const items = (schema.items ?? {}) as JsonSchema;
      values.forEach((v) => refuseCommaList(name, v, items));
      input[name] = values.map((v) => fromText(name, v, items));
      continue;
    }
    if (values.length > 1) throw requestError('validation_failed', `query parameter ${name} is given ${values.length} times; give it once`, { field: name });
    input[name] = fromText(name, values[0]!, schema);
  }
  return { ...input, ...params };
}

/**
 * `?types=fact,preference`, the form most APIs take, was refused as one unknown type (`types.0`) that the
 * answer's list of options did not explain. A value of the parameter's options joined by commas is told
 * how to give them instead. Only where the items are an enum: a free-text tag may hold a comma.
 */
function refuseCommaList(name: string, text: string, items: JsonSchema): void {
  const options = Array.isArray(items.enum) ? (items.enum as unknown[]) : null;
  if (!options || !text.includes(',') || !text.split(',').every((part) => options.includes(part.trim()))) return;
  const parts = text.split(',').map((part) => `${name}=${encodeURIComponent(part.trim())}`);
  throw requestError('validation_failed', `query parameter ${name} takes one value each time it is given: repeat it (?${parts.join('&')}) rather than separating values with commas`, { field: name });
}

/** One query value as the type the schema asks for; the tool's own validation then checks its range. */
function fromText(name: string, text: string, schema: JsonSchema): unknown {
  switch (schema.type) {
    case 'integer':
      if (!/^-?\d+$/.test(text)) throw requestError('validation_failed', `query parameter ${name} must be a whole number; got ${JSON.stringify(text)}`, { field: name });
      return Number(text);
    case 'number':
      if (!/^-?\d+(\.\d+)?$/.test(text)) throw requestError('validation_failed', `query parameter ${name} must be a number; got ${JSON.stringify(text)}`, { field: name });
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw requestError('validation_failed', `query parameter ${name} must be true or false; got ${JSON.stringify(text)}`, { field: name });
      return text === 'true';
    default:
      return text;
  }
}
