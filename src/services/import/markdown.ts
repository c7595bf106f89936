import type { RememberInput } from '../inputs.ts';
import { fileKeyPrefix } from '../file-memories.ts';
import { OWNER_MARKED_LABEL } from '../../lifecycle/merge-plan.ts';
import { overlapsOwnerMarked, ownerMarkedRanges } from '../../lifecycle/owner-marked.ts';

/**
 * Splits Markdown into chunks at headings and, inside long sections, at
 * paragraph breaks. A chunk's text is exactly its source lines, so the
 * citation (path + line range) reads the same text back. Fenced code blocks
 * are never split.
 */
export interface MarkdownChunk {
  text: string;
  lineStart: number;
  lineEnd: number;
  headings: string[];
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;

export function chunkMarkdown(source: string, maxChars = 1500): MarkdownChunk[] {
  const lines = source.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const chunks: MarkdownChunk[] = [];
  const headingStack: string[] = [];
  let start = -1; // 0-based index of the first line of the open chunk
  let end = -1; // 0-based index of its last non-blank line
  let size = 0;
  let inFence = false;
  let chunkHeadings: string[] = [];

  const flush = () => {
    if (start >= 0 && end >= start) {
      chunks.push({ text: lines.slice(start, end + 1).join('\n'), lineStart: start + 1, lineEnd: end + 1, headings: chunkHeadings });
    }
    start = -1;
    end = -1;
    size = 0;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    const heading = !inFence && !FENCE.test(line) ? HEADING.exec(line) : null;
    if (heading) {
      flush();
      const level = heading[1]!.length;
      headingStack.length = level - 1;
      headingStack[level - 1] = heading[2]!;
    }
    const blank = line.trim() === '';
    if (blank && !inFence) {
      // A paragraph ends here; split only if the chunk is already big.
      if (size >= maxChars) flush();
      continue;
    }
    if (start < 0) {
      start = i;
      chunkHeadings = headingStack.filter((h) => h !== undefined);
    }
    end = i;
    size += line.length + 1;
  }
  flush();
  return chunks;
}

export function markdownInputs(absPath: string, source: string): RememberInput[] {
  // Blocks between <!-- owner --> markers are the owner's words: labelled so every automated rewrite or merge leaves them verbatim.
  const owned = ownerMarkedRanges(source);
  return chunkMarkdown(source).map((c) => ({
    ...(overlapsOwnerMarked(owned, c.lineStart, c.lineEnd) ? { labels: [OWNER_MARKED_LABEL] } : {}),
    text: c.text,
    type: 'general',
    origin: 'file',
    source: { path: absPath, lineStart: c.lineStart, lineEnd: c.lineEnd },
    key: `${fileKeyPrefix(absPath)}L${c.lineStart}-L${c.lineEnd}`,
    metadata: c.headings.length ? { headings: c.headings } : {},
  }));
}
