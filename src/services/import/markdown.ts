import { MnemosError } from '../../domain/errors.ts';
import { charCount, exceedsChars, isBlankText } from '../../domain/unicode.ts';
import type { RememberInput } from '../inputs.ts';
import { MAX_TEXT_CHARS } from '../inputs.ts';
import { fileKeyPrefix } from '../../domain/source-keys.ts';
import { OWNER_MARKED_LABEL } from '../../lifecycle/merge-plan.ts';
import { overlapsOwnerMarked, ownerMarkedRanges } from '../../lifecycle/owner-marked.ts';
import { splitLines } from './file-lines.ts';

/**
 * Splits Markdown into chunks at headings and, inside long sections, at
 * paragraph breaks. A chunk's text is exactly its source lines, so the
 * citation (path + line range) reads the same text back. Fenced code blocks
 * are not split, unless one alone is longer than a memory's text may be.
 *
 * A chunk is never longer than a memory's text may be (`limit`): a section
 * with no blank line in it (a long list, a big table, a long fenced block)
 * made the whole file fail with "text is limited to 200000 characters".
 * Such a section is cut at line breaks instead, each part with its own line
 * range. Only chunks past the limit are cut this way, so every file that
 * imported before keeps its chunks (and their keys). A single line past the
 * limit stays one chunk, and markdownInputs refuses it by its line.
 */
export interface MarkdownChunk {
  text: string;
  lineStart: number;
  lineEnd: number;
  headings: string[];
  /** Set on the chunk (or, past the limit, the chunks) holding the file's front matter, to its syntax. */
  frontMatter?: FrontMatter;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

export function chunkMarkdown(source: string, maxChars = 1500, limit = MAX_TEXT_CHARS): MarkdownChunk[] {
  const lines = splitLines(source);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const front = frontMatter(lines);
  const fmEnd = front ? front.end : -1;
  // Front matter is held together as a fenced block is (its blank lines do not cut it, a "# comment" in it is no heading).
  const fences = fencedBlocks(lines, fmEnd + 1);
  if (front) {
    fences.inside.fill(1, 0, fmEnd + 1);
    fences.opens.set(0, fmEnd);
  }
  const comments = htmlComments(lines, fences.inside);
  const setext = setextHeadings(lines, fences.inside, comments);
  // offset[i]: where line i starts in the lines joined by "\n", so any chunk's length is known exactly (blank lines included).
  const offset = [0];
  for (const line of lines) offset.push(offset[offset.length - 1]! + line.length + 1);
  const length = (first: number, last: number) => offset[last + 1]! - offset[first]! - 1;
  const chunks: MarkdownChunk[] = [];
  const headingStack: string[] = [];
  let start = -1; // 0-based index of the first line of the open chunk
  let end = -1; // 0-based index of its last non-blank line
  let size = 0;
  let chunkHeadings: string[] = [];

  const flush = () => {
    if (start >= 0 && end >= start) {
      const chunk: MarkdownChunk = { text: lines.slice(start, end + 1).join('\n'), lineStart: start + 1, lineEnd: end + 1, headings: chunkHeadings };
      if (front && start <= fmEnd) chunk.frontMatter = front.syntax;
      chunks.push(chunk);
    }
    start = -1;
    end = -1;
    size = 0;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const inFence = fences.inside[i] === 1;
    const atx = !inFence && comments[i] !== 1 ? HEADING.exec(line) : null;
    const heading = atx ? { level: atx[1]!.length, text: atx[2]! } : setext.get(i);
    if (heading) {
      flush();
      headingStack.length = heading.level - 1;
      headingStack[heading.level - 1] = heading.text;
    }
    // A line of only zero-width characters is blank too: a file of nothing else imports nothing, as one of spaces does (the memory would be refused as blank).
    const blank = isBlankText(line);
    if (blank && !inFence) {
      // A paragraph ends here; split only if the chunk is already big.
      if (size >= maxChars) flush();
      continue;
    }
    if (start >= 0) {
      // A fenced block that fits starts a chunk of its own rather than being cut where the open chunk reaches the limit.
      const close = fences.opens.get(i);
      if (close !== undefined && length(start, close) > limit) flush();
      // Past the limit the chunk ends at this line break, wherever it is (a list, a table, a fenced block too long on its own).
      else if (length(start, i) > limit) flush();
    }
    if (start < 0) {
      start = i;
      chunkHeadings = headingStack.filter((h) => h !== undefined);
    }
    end = i;
    size += line.length + 1;
    // The front matter is a chunk of its own: the note's first paragraph is not part of it.
    if (i === fmEnd) flush();
  }
  flush();
  return chunks;
}

/**
 * Front matter, as Jekyll, Hugo and Obsidian write it on every note: a first
 * line of "---" (YAML) or "+++" (TOML) and the next line of the same (or
 * "..." for YAML). It was read as Markdown: a "# comment" in the YAML was a
 * heading over the whole note, and the opening "---" with the line after it
 * could read as a heading. It is kept, exactly as the file holds it, as a
 * chunk of its own, marked `frontMatter` in its metadata. A first "---" with
 * no closing line, or whose first line (past blanks and "#" comments) is no
 * `key:` or list item (`key =` or `[table]` in TOML), is Markdown, as before.
 */
export type FrontMatter = 'yaml' | 'toml';

function frontMatter(lines: readonly string[]): { end: number; syntax: FrontMatter } | null {
  const open = /^(---|\+\+\+)[ \t]*$/.exec(lines[0] ?? '');
  if (!open) return null;
  const yaml = open[1] === '---';
  const close = yaml ? /^(---|\.\.\.)[ \t]*$/ : /^\+\+\+[ \t]*$/;
  let end = -1;
  for (let j = 1; j < lines.length && end < 0; j++) if (close.test(lines[j]!)) end = j;
  if (end < 0) return null;
  // A note opening with a thematic break and a "# Heading" under it is Markdown: front matter starts with a key (or a list, in YAML).
  const first = lines.slice(1, end).find((l) => l.trim() !== '' && !/^\s*#/.test(l));
  if (first !== undefined && !(yaml ? YAML_START : TOML_START).test(first)) return null;
  return { end, syntax: yaml ? 'yaml' : 'toml' };
}

const YAML_START = /^\s*(?:- |-$|[^\s:#][^:]*:(?:\s|$)|["'][^"']*["']\s*:(?:\s|$))/;
const TOML_START = /^\s*(?:\[|[A-Za-z0-9_"'.-]+\s*=)/;

/**
 * Setext headings, as CommonMark reads them: a paragraph followed by a line
 * of "=" (level 1) or "-" (level 2), indented at most three spaces. They were
 * not seen: "Title" over "=====" stayed inside the chunk before it and in
 * no chunk's `headings`. A "---" after a blank line (or a heading, a fence,
 * a list item, a quote) has no paragraph above it and is a thematic break.
 * Maps the paragraph's first line (where the heading's chunk starts) to the
 * heading; its text is the paragraph's lines, trimmed, joined by a space.
 */
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
// Lines that start a block of another kind, whose text a "---" under it does not make a heading (a "- item" over "---" is a list and a break).
const OTHER_BLOCK = /^ {0,3}(?:[>|<]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/;

function setextHeadings(lines: readonly string[], inFence: Uint8Array, inComment: Uint8Array): Map<number, { level: number; text: string }> {
  const out = new Map<number, { level: number; text: string }>();
  const underlines = new Set<number>();
  const plain = (j: number) => inFence[j] !== 1 && inComment[j] !== 1 && lines[j]!.trim() !== '' && !underlines.has(j) && !HEADING.test(lines[j]!) && !THEMATIC_BREAK.test(lines[j]!);
  for (let i = 1; i < lines.length; i++) {
    const under = inFence[i] === 1 || inComment[i] === 1 ? null : SETEXT_UNDERLINE.exec(lines[i]!);
    if (!under) continue;
    let first = i;
    while (first > 0 && plain(first - 1)) first--;
    if (first === i) continue;
    const para = lines.slice(first, i);
    // Indented four columns, the first line is code; a list item, quote, table row or HTML line anywhere makes the text part of that block.
    if (columns(/^[ \t]*/.exec(para[0]!)![0]) >= 4 || para.some((l) => OTHER_BLOCK.test(l))) continue;
    out.set(first, { level: under[1]![0] === '=' ? 1 : 2, text: para.map((l) => l.trim()).join(' ') });
    underlines.add(i);
  }
  return out;
}

/**
 * Fenced code blocks as CommonMark reads them: an opening fence is three or
 * more backticks or tildes, indented at most three spaces; the block ends
 * only at a line of the same character, at least as long, with nothing but
 * spaces after it (or at the end of the file). A toggle on any fence line
 * took a ```` block showing ``` lines, or a ~~~ block showing a ``` line,
 * for two blocks with text between them, and a heading-looking line of the
 * rest of the file was then missed or seen.
 *
 * Fences inside list items are indented by the item too: the three spaces
 * count from the content of the last list item seen (reset by a heading or
 * by a paragraph at the margin after a blank line), so notes with a code
 * block under "1. Step" keep it fenced, as they did.
 *
 * `inside[i]` is 1 for the fence lines and every line between them;
 * `opens` maps each opening line to the last line of its block.
 */
const FENCE_OPEN = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^([ \t]*)(`{3,}|~{3,})[ \t]*$/;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+|$)/;

function columns(indent: string): number {
  let col = 0;
  for (const c of indent) col = c === '\t' ? col + 4 - (col % 4) : col + 1;
  return col;
}

function fencedBlocks(lines: readonly string[], from = 0): { inside: Uint8Array; opens: Map<number, number> } {
  const inside = new Uint8Array(lines.length);
  const opens = new Map<number, number>();
  let container = 0; // the column where the last list item's content starts
  let afterBlank = false;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    const open = FENCE_OPEN.exec(line);
    // A backtick fence's info string has no backtick: ```a``` is inline code.
    if (open && columns(open[1]!) <= container + 3 && !(open[2]![0] === '`' && open[3]!.includes('`'))) {
      const char = open[2]![0]!;
      const maxIndent = container + 3;
      let j = i + 1;
      for (; j < lines.length; j++) {
        const close = FENCE_CLOSE.exec(lines[j]!);
        if (close && close[2]![0] === char && close[2]!.length >= open[2]!.length && columns(close[1]!) <= maxIndent) break;
      }
      const last = Math.min(j, lines.length - 1); // an unclosed block runs to the end of the file
      inside.fill(1, i, last + 1);
      opens.set(i, last);
      i = last;
      afterBlank = false;
      continue;
    }
    if (line.trim() === '') {
      afterBlank = true;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const gap = item[3]!.length;
      container = columns(item[1]!) + item[2]!.length + (gap >= 1 && gap <= 4 ? gap : 1);
    } else if (HEADING.test(line) || (afterBlank && columns(/^[ \t]*/.exec(line)![0]) === 0)) {
      container = 0;
    }
    afterBlank = false;
  }
  return { inside, opens };
}

/**
 * The lines inside HTML comments that span lines, as CommonMark reads them: a
 * line starting (after at most three spaces) with `<!--` opens one, and the
 * first line holding `-->` closes it (an unclosed one runs to the end). A
 * section commented out (`<!--` / `## Old plan` / `-->`) was read as a
 * heading: the chunk was cut there and its text became the next chunks'
 * heading. Only headings are affected; lines inside fences are not looked at.
 */
const COMMENT_OPEN = /^ {0,3}<!--/;

function htmlComments(lines: readonly string[], inFence: Uint8Array): Uint8Array {
  const inside = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const open = inFence[i] === 1 ? null : COMMENT_OPEN.exec(lines[i]!);
    if (!open || lines[i]!.includes('-->', open[0].length)) continue;
    let j = i + 1;
    while (j < lines.length && !lines[j]!.includes('-->')) j++;
    const last = Math.min(j, lines.length - 1);
    inside.fill(1, i + 1, last + 1);
    i = last;
  }
  return inside;
}

/**
 * The most of one heading a chunk's `headings` metadata holds. Every chunk
 * under a heading carries it, so a 150,000-character heading over 50
 * subsections stored 7.5 MB of metadata; past this it is cut and marked with
 * HEADING_CUT. The chunk's text (a heading line is its own chunk's text) is
 * never shortened: it stays exactly the source lines.
 */
export const MAX_HEADING_CHARS = 500;
export const HEADING_CUT = '…';

function headingForMetadata(h: string): string {
  if (h.length <= MAX_HEADING_CHARS) return h;
  // Not between the two halves of a surrogate pair: a lone half is not storable text.
  const end = /[\uD800-\uDBFF]/.test(h[MAX_HEADING_CHARS - 1]!) ? MAX_HEADING_CHARS - 1 : MAX_HEADING_CHARS;
  return h.slice(0, end) + HEADING_CUT;
}

/** `path`: the file as the caller named it, for errors. */
export function markdownInputs(absPath: string, source: string, path = absPath): { input: RememberInput; line: number; lineEnd: number }[] {
  // Blocks between <!-- owner --> markers are the owner's words: labelled so every automated rewrite or merge leaves them verbatim.
  const owned = ownerMarkedRanges(source);
  return chunkMarkdown(source).map((c) => {
    // Chunks are cut by UTF-16 length (never longer in characters), but a chunk is refused only past the limit in
    // characters, as add and JSONL import count them.
    if (exceedsChars(c.text, MAX_TEXT_CHARS)) {
      // Only a single line gets here: longer chunks are cut at line breaks, and a line has none.
      throw new MnemosError(
        'validation_failed',
        `${path}:${c.lineStart}: line ${c.lineStart} has ${charCount(c.text)} characters, and a memory's text is limited to ${MAX_TEXT_CHARS}; Markdown is cut into chunks at line breaks only, so break this line (nothing of ${path} was written)`,
        { line: c.lineStart, path, field: 'text' },
      );
    }
    return {
      line: c.lineStart,
      lineEnd: c.lineEnd,
      input: {
        ...(overlapsOwnerMarked(owned, c.lineStart, c.lineEnd) ? { labels: [OWNER_MARKED_LABEL] } : {}),
        text: c.text,
        type: 'general',
        origin: 'file',
        source: { path: absPath, lineStart: c.lineStart, lineEnd: c.lineEnd },
        key: `${fileKeyPrefix(absPath)}L${c.lineStart}-L${c.lineEnd}`,
        // Only the metadata is capped: whether a re-import finds a chunk unchanged depends on its text alone (its content hash).
        metadata: {
          ...(c.headings.length ? { headings: c.headings.map(headingForMetadata) } : {}),
          ...(c.frontMatter ? { frontMatter: c.frontMatter } : {}),
        },
      },
    };
  });
}
