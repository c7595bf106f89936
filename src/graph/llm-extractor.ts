import { MnemosError } from '../domain/errors.ts';
import type { Extraction, Extractor, Mention } from './extraction.ts';

/**
 * Optional LLM extraction through any OpenAI-compatible chat endpoint
 * (`POST {baseUrl}/chat/completions`) with a JSON schema response format.
 * Nothing is called unless the owner configures a base URL.
 */
export interface LlmExtractorOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const KINDS = ['person', 'name', 'handle', 'title', 'date', 'place', 'org', 'other'] as const;

export const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['entities', 'relations'],
  properties: {
    entities: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string', enum: [...KINDS] } } },
    },
    relations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['subject', 'predicate', 'object'],
        properties: { subject: { type: 'string' }, predicate: { type: 'string' }, object: { type: 'string' } },
      },
    },
  },
} as const;

const SYSTEM =
  'Extract named entities (people, places, organisations, handles, titles, dates) and relations between them from the user text. ' +
  'Use snake_case predicates such as works_at, lives_in, married_to, sister_of, knows. Only what the text states. Reply with JSON only.';

export function createLlmExtractor(opts: LlmExtractorOptions): Extractor {
  const doFetch = opts.fetch ?? fetch;
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return async (text) => {
    const body = {
      model: opts.model,
      temperature: 0,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: text },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'graph_extraction', strict: true, schema: EXTRACTION_SCHEMA } },
    };
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new MnemosError('unavailable', `graph extractor at ${opts.baseUrl} is unreachable: ${(err as Error).message}`, { baseUrl: opts.baseUrl }, { cause: err });
    }
    if (!res.ok) throw new MnemosError('unavailable', `graph extractor answered HTTP ${res.status}`, { status: res.status });
    const json = (await res.json()) as { choices?: { message?: { content?: string } }[] };
    return parseExtraction(json.choices?.[0]?.message?.content ?? '');
  };
}

/** Validates the model's JSON; anything malformed is dropped rather than stored. */
export function parseExtraction(content: string): Extraction {
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    throw new MnemosError('unavailable', 'graph extractor returned text that is not JSON');
  }
  const d = data as { entities?: unknown; relations?: unknown };
  const str = (v: unknown, max = 200) => typeof v === 'string' && v.trim().length > 0 && v.length <= max;
  const mentions: Mention[] = (Array.isArray(d.entities) ? d.entities : [])
    .filter((e: { name?: unknown; type?: unknown }) => str(e?.name) && (KINDS as readonly string[]).includes(e?.type as string))
    .map((e: { name: string; type: Mention['type'] }) => ({ name: e.name.trim(), type: e.type }));
  const relations = (Array.isArray(d.relations) ? d.relations : [])
    .filter((r: Record<string, unknown>) => str(r?.subject) && str(r?.object) && typeof r?.predicate === 'string' && /^[a-z][a-z0-9_]{0,40}$/.test(r.predicate as string))
    .map((r: { subject: string; predicate: string; object: string }) => ({ subject: r.subject.trim(), predicate: r.predicate, object: r.object.trim() }));
  return { mentions, relations };
}
