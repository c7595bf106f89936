import { ERROR_CODES } from '../../domain/errors.ts';
import { inputJsonSchema } from '../tools/json-schema.ts';
import type { Tool } from '../tools/tool.ts';
import { HTTP_STATUS } from './error-status.ts';
import { memoriesBodySchema, transcriptSchema } from './ingest.ts';
import type { HttpLimits } from './limits.ts';
import { queryParams } from './query-input.ts';
import { openApiPath, pathParams, TOOL_ROUTES } from './routes.ts';

const errorSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string', enum: [...ERROR_CODES] }, message: { type: 'string' }, details: { type: 'object' } }, required: ['code', 'message'] } },
};

function errorResponses(): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const code of ERROR_CODES) byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  return Object.fromEntries([...byStatus].map(([status, codes]) => [String(status), { description: codes.join(', '), content: { 'application/json': { schema: errorSchema } } }]));
}

function jsonBody(schema: Record<string, unknown>) {
  return { required: true, content: { 'application/json': { schema } } };
}

const ok = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildOpenApi(tools: readonly Tool[], limits: HttpLimits): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errors = errorResponses();
  for (const t of tools) {
    paths[`/v1/tools/${t.name}`] = {
      post: {
        operationId: t.name,
        summary: t.description.split('. ')[0],
        description: t.description + (t.ownerOnly ? ' (owner tokens only; others get 403)' : ''),
        requestBody: jsonBody(inputJsonSchema(t.input)),
        responses: { '200': ok('tool result'), ...errors },
      },
    };
  }
  for (const r of TOOL_ROUTES) {
    const tool = tools.find((t) => t.name === r.tool);
    if (!tool) continue;
    const path = openApiPath(r.path);
    const params: Record<string, unknown>[] = pathParams(r.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    if (r.method === 'GET') {
      for (const q of queryParams(r, tool)) {
        const { description, ...schema } = q.schema;
        params.push({ name: q.name, in: 'query', required: q.required, ...(typeof description === 'string' ? { description } : {}), schema, ...(schema.type === 'array' ? { style: 'form', explode: true } : {}) });
      }
    }
    // GET /v1/memories (list) and POST /v1/memories (ingest, below) share the path.
    paths[path] = {
      ...paths[path],
      [r.method.toLowerCase()]: {
        operationId: `${r.tool}_${r.method.toLowerCase()}_${path.replace(/\W+/g, '_')}`,
        summary: r.summary,
        ...(params.length ? { parameters: params } : {}),
        ...(r.method === 'POST' ? { requestBody: jsonBody(inputJsonSchema(tool.input)) } : {}),
        responses: { '200': ok(`same as ${r.tool}`), ...errors },
      },
    };
  }
  paths['/v1/memories'] = {
    ...paths['/v1/memories'],
    post: {
      operationId: 'ingest_memories',
      summary: 'store one memory, or a batch {memories: [...]} all-or-nothing; `key` makes it idempotent',
      requestBody: jsonBody(inputJsonSchema(memoriesBodySchema(limits.maxBatch))),
      responses: { '201': ok('created (status per memory)'), '200': ok('nothing new: every key was already stored with the same text'), ...errors },
    },
  };
  paths['/v1/transcripts'] = {
    post: {
      operationId: 'ingest_transcript',
      summary: 'store a conversation; each turn becomes an episode keyed by session + turn (idempotent)',
      requestBody: jsonBody(inputJsonSchema(transcriptSchema)),
      responses: { '201': ok('stored'), '200': ok('nothing new'), ...errors },
    },
  };
  paths['/healthz'] = { get: { operationId: 'healthz', summary: 'liveness, no token needed', security: [], responses: { '200': ok('{ok: true}') } } };
  paths['/readyz'] = {
    get: {
      operationId: 'readyz',
      summary: 'readiness, no token needed: one round trip to the store (SELECT 1)',
      security: [],
      responses: { '200': ok('{ok: true}'), '503': { description: 'unavailable: the store cannot be reached', content: { 'application/json': { schema: errorSchema } } } },
    },
  };
  // The transport answers JSON-RPC itself past authentication and the body limit: its statuses and error
  // bodies are the protocol's, not ours (the document listed only ours).
  const jsonRpcError = {
    type: 'object',
    properties: { jsonrpc: { const: '2.0' }, error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } }, required: ['code', 'message'] }, id: {} },
    required: ['jsonrpc', 'error'],
  };
  const pick = (...statuses: string[]) => Object.fromEntries(statuses.map((st) => [st, errors[st]]));
  const notAllowed = { '405': { description: 'this stateless server answers POST only (no server-sent event stream, no session to delete)' } };
  paths['/mcp'] = {
    post: {
      operationId: 'mcp',
      summary: 'MCP streamable HTTP transport (stateless, JSON responses); same tools as /v1/tools',
      description: 'Send Accept: application/json, text/event-stream (MCP clients do).',
      requestBody: jsonBody({ type: ['object', 'array'] }),
      responses: {
        '200': ok('JSON-RPC response'),
        '202': { description: 'a notification or response was accepted; no body' },
        '400': { description: 'JSON-RPC error (parse error, invalid request)', content: { 'application/json': { schema: jsonRpcError } } },
        '406': { description: 'the Accept header does not list both application/json and text/event-stream', content: { 'application/json': { schema: jsonRpcError } } },
        '415': { description: 'the body is not sent as application/json', content: { 'application/json': { schema: jsonRpcError } } },
        ...pick('401', '403', '413', '500'),
      },
    },
    get: { operationId: 'mcpStream', summary: 'not offered', responses: notAllowed },
    delete: { operationId: 'mcpSession', summary: 'not offered', responses: notAllowed },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Mnemos', version: '0.1.0', description: `Persistent memory for AI agents. Request bodies are limited to ${limits.maxBodyBytes} bytes.` },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

