/** What the app answers for a path, from Hono's own route list (so it cannot drift from the routes). */
export interface RouteEntry {
  method: string;
  path: string;
}

/** `/v1/memories/:id` as a whole-path pattern; a parameter is one non-empty segment, as Hono matches it. */
function pattern(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

/**
 * The methods a path takes, in the form of an Allow header's list, or [] when
 * no route has that path. Middleware (`use`, method ALL with a `*`) is not a route.
 */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue;
    if (pattern(r.path).test(path)) methods.add(r.method);
  }
  if (methods.size === 0) return [];
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort();
}
