/**
 * Glob matching with Python `fnmatch.fnmatchcase` semantics, because the seed's
 * salience registry and blackboard queries are written against it:
 *
 * - `*` matches any run of characters, dots and newlines included;
 * - `?` matches exactly one character (a code point);
 * - `[seq]` / `[!seq]` match one character in / not in the set; `a-z` ranges;
 *   a `]` right after `[` or `[!` is a member, not the end; `-` first or last is
 *   literal; a reversed range (`z-a`) matches nothing;
 * - a `[` without a closing `]` is a literal `[`;
 * - everything else, backslash included, is literal; matching is case-sensitive.
 *
 * Patterns compile to a RegExp once and are cached, since the same few
 * patterns are tested against thousands of keys per tick.
 */

const CACHE_LIMIT = 4096;
const cache = new Map<string, RegExp>();

/** Escapes one code point so it is literal both inside and outside a RegExp class. */
function lit(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** Parses the body of a `[...]` class (without brackets or `!`) into RegExp class items. */
function classItems(body: number[]): string {
  let out = '';
  let i = 0;
  while (i < body.length) {
    const lo = body[i]!;
    if (i + 2 < body.length && body[i + 1] === 0x2d /* - */) {
      const hi = body[i + 2]!;
      // fnmatch drops a reversed range entirely instead of failing.
      if (lo <= hi) out += `${lit(lo)}-${lit(hi)}`;
      i += 3;
    } else {
      out += lit(lo);
      i += 1;
    }
  }
  return out;
}

/** Translates a pattern to the source of an anchored RegExp (flags `su`). */
export function translateGlob(pattern: string): string {
  const cps = Array.from(pattern, (ch) => ch.codePointAt(0)!);
  let out = '';
  let i = 0;
  while (i < cps.length) {
    const c = cps[i]!;
    i += 1;
    if (c === 0x2a /* * */) {
      if (!out.endsWith('.*')) out += '.*';
    } else if (c === 0x3f /* ? */) {
      out += '.';
    } else if (c === 0x5b /* [ */) {
      let j = i;
      const negated = j < cps.length && cps[j] === 0x21; /* ! */
      if (negated) j += 1;
      // The first member may be `]`; the class ends at the next `]` after it.
      if (j < cps.length && cps[j] === 0x5d) j += 1;
      while (j < cps.length && cps[j] !== 0x5d) j += 1;
      if (j >= cps.length) {
        out += lit(c);
        continue;
      }
      const items = classItems(cps.slice(negated ? i + 1 : i, j));
      i = j + 1;
      if (items === '') out += negated ? '.' : '(?!)';
      else out += negated ? `[^${items}]` : `[${items}]`;
    } else {
      out += lit(c);
    }
  }
  return `^${out}$`;
}

/** The compiled, cached RegExp for a glob pattern. */
export function compileGlob(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re === undefined) {
    re = new RegExp(translateGlob(pattern), 'su');
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(pattern, re);
  }
  return re;
}

/** `fnmatch.fnmatchcase(name, pattern)`. */
export function fnmatch(name: string, pattern: string): boolean {
  return compileGlob(pattern).test(name);
}

export type GlobMatcher = (name: string) => boolean;

const META = /[*?[]/;

/**
 * A matcher specialised for the pattern's shape: equality for literal
 * patterns, `startsWith` for `prefix*`, and otherwise a literal-prefix check
 * before the RegExp. Same answers as `fnmatch`, far cheaper on hot paths.
 */
export function compileMatcher(pattern: string): GlobMatcher {
  const firstMeta = pattern.search(META);
  if (firstMeta === -1) return (name) => name === pattern;
  const prefix = pattern.slice(0, firstMeta);
  const rest = pattern.slice(firstMeta);
  if (/^\*+$/.test(rest)) return prefix === '' ? () => true : (name) => name.startsWith(prefix);
  const re = compileGlob(pattern);
  if (prefix === '') return (name) => re.test(name);
  return (name) => name.startsWith(prefix) && re.test(name);
}

/** True when the pattern contains a glob metacharacter (so it is not a plain key). */
export function isGlob(pattern: string): boolean {
  return META.test(pattern);
}
