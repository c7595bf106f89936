/**
 * Owner-marked text in Markdown: everything between `<!-- owner -->` and
 * `<!-- /owner -->` (or the next `<!-- owner -->`) is the owner's own words,
 * kept verbatim by every automated rewrite. Returns 1-based inclusive line
 * ranges; an unclosed block runs to the end of the file.
 */
const OPEN = /^\s*<!--\s*owner\s*-->\s*$/i;
const CLOSE = /^\s*<!--\s*\/\s*owner\s*-->\s*$/i;

export function ownerMarkedRanges(source: string): { lineStart: number; lineEnd: number }[] {
  // Lines end where an import counts them (LINE_END in services/import/file-lines.ts): a lone "\r" too.
  const lines = source.split(/\r\n|\r|\n/);
  const out: { lineStart: number; lineEnd: number }[] = [];
  let start = -1;
  lines.forEach((line, i) => {
    if (start < 0 && OPEN.test(line)) start = i + 1;
    else if (start >= 0 && (CLOSE.test(line) || OPEN.test(line))) {
      out.push({ lineStart: start, lineEnd: i + 1 });
      start = -1;
    }
  });
  if (start >= 0) out.push({ lineStart: start, lineEnd: lines.length });
  return out;
}

export function overlapsOwnerMarked(ranges: readonly { lineStart: number; lineEnd: number }[], lineStart: number, lineEnd: number): boolean {
  return ranges.some((r) => lineStart <= r.lineEnd && lineEnd >= r.lineStart);
}
