/**
 * REST-style aliases for registry tools. Every tool is also at
 * `POST /v1/tools/<name>`; these give the common ones plain HTTP shapes.
 * GET routes take their input from path parameters and the query string.
 */
export interface ToolRoute {
  method: 'GET' | 'POST';
  path: string;
  tool: string;
  summary: string;
  /**
   * The tool input fields a GET route reads from the query string; default:
   * every field of the tool's input that is not a path parameter. `[]` for a
   * route whose other fields make no sense there (memory_get by path).
   */
  query?: readonly string[];
}

export const TOOL_ROUTES: ToolRoute[] = [
  { method: 'POST', path: '/v1/search', tool: 'memory_search', summary: 'ranked search (same as memory_search)' },
  { method: 'GET', path: '/v1/memories', tool: 'memory_list', summary: 'page through memories with filters (same as memory_list)' },
  { method: 'GET', path: '/v1/memories/:id', tool: 'memory_get', summary: 'one memory by id', query: [] },
  { method: 'GET', path: '/v1/memories/:id/history', tool: 'memory_history', summary: 'versions and audit entries' },
  { method: 'GET', path: '/v1/status', tool: 'memory_status', summary: 'counts, size, configuration' },
  { method: 'GET', path: '/v1/self', tool: 'self_state', summary: 'which parts are on, off or unavailable' },
];

/** The path parameters of a route, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
}

/** `/v1/memories/:id` -> `/v1/memories/{id}` for OpenAPI. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}
