import type { SqlPart } from './scope-sql.ts';

/**
 * The shared SQL fragments use `?` placeholders (SQLite's form). PostgreSQL
 * wants `$1..$n`; this renumbers them so both adapters run the same scope and
 * filter SQL. Our fragments never put `?` inside string literals, and `start`
 * lets a caller append a fragment after parameters it already bound.
 */
export function numbered(sql: string, start = 0): string {
  let n = start;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Joins fragments into one statement and renumbers the placeholders. */
export function pgQuery(parts: (string | SqlPart)[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += part;
    else {
      text += numbered(part.sql, values.length);
      values.push(...part.params);
    }
  }
  return { text, values };
}

/** A literal fragment with `?` placeholders and its values. */
export function sql(text: string, ...params: unknown[]): SqlPart {
  return { sql: text, params };
}
