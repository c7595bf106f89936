import type Database from 'better-sqlite3';
import type { TextProgress } from '../../ports/migration-progress.ts';
import { MnemosError } from '../../domain/errors.ts';
import { PROGRESS_EVERY } from './reanalyze-texts.ts';

/**
 * The tokenizer migration 1 gave memories_fts. unicode61 reads letters,
 * digits and private-use characters as a term's characters and anything
 * else as a space, combining marks included: a Thai word with a vowel sign
 * (ที่) was indexed as its consonant alone, a Devanagari word (हिन्दी) as its
 * consonants one by one. The analyzer (retrieval/text) keeps marks in a
 * term, so FTS5's answer to an exact query and its term counts (the vocab
 * table termStats reads) were about other terms than the writer's.
 */
export const SPLITS_AT_MARKS = "tokenize='unicode61 remove_diacritics 0'";
/** The same tokenizer with marks (M*) read as a term's characters too: a term of the analyzer is one FTS5 term. */
export const KEEPS_MARKS = `tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'"`;

const NON_ASCII = /[^\x00-\x7F]/;
const MARK = /\p{M}/u;

/**
 * Migration 15's work: memories_fts reads marks as part of a term from now
 * on, and only the rows whose terms hold a mark are indexed again (the
 * others' terms come out of both tokenizers the same). A table's tokenizer
 * is part of its declaration and FTS5 has no ALTER for it, so the
 * declaration is rewritten in place (the writable_schema change SQLite
 * documents for changes that leave stored data valid, with the schema
 * version moved so every connection reads it again); rebuilding the whole
 * index instead re-analysed every text, about 2 s per 5,000 memories.
 * Returns the rows indexed again.
 */
export function keepMarksInTerms(db: Database.Database, analyze: (text: string) => string[], progress?: TextProgress): number {
  const declared = (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'memories_fts'").get() as { sql: string } | undefined)?.sql ?? '';
  // A store whose version was set back (tests, a hand repair) runs this again: its index already keeps marks.
  if (declared.includes(KEEPS_MARKS)) return 0;
  if (!declared.includes(SPLITS_AT_MARKS)) {
    throw new MnemosError('internal', `the full-text table memories_fts is not declared as this store's migrations left it: ${declared}`);
  }
  // Chosen before anything is written (better-sqlite3 allows no write while a read iterates). An ASCII text holds
  // no mark, so most texts cost one test; the analyzer's own terms decide (it drops the dot of Turkish İ).
  const redo: { rowid: number; terms: string }[] = [];
  for (const r of db.prepare('SELECT rowid, text FROM memories').iterate() as IterableIterator<{ rowid: number; text: string }>) {
    if (!NON_ASCII.test(r.text) || !MARK.test(r.text.normalize('NFKC'))) continue;
    const terms = analyze(r.text);
    if (terms.some((t) => MARK.test(t))) redo.push({ rowid: r.rowid, terms: terms.join(' ') });
  }

  const version = db.pragma('schema_version', { simple: true }) as number;
  // better-sqlite3 opens connections in SQLite's defensive mode, which refuses any write to sqlite_schema.
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'memories_fts'").run(declared.replace(SPLITS_AT_MARKS, KEEPS_MARKS));
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }

  if (redo.length === 0) return 0;
  // contentless_delete: a row leaves the index by rowid, without its old terms. Lengths and the keyword copy
  // (which reads the analyzer's terms, not FTS5's) do not change.
  const indexed = db.prepare('SELECT count(*) AS n FROM memories_fts WHERE rowid = ?');
  const drop = db.prepare('DELETE FROM memories_fts WHERE rowid = ?');
  const put = db.prepare('INSERT INTO memories_fts (rowid, terms) VALUES (?, ?)');
  progress?.(0, redo.length);
  let done = 0;
  for (const r of redo) {
    // A row the index does not hold stays out of it, as in migration 14.
    if ((indexed.get(r.rowid) as { n: number }).n > 0) {
      drop.run(r.rowid);
      put.run(r.rowid, r.terms);
    }
    if (++done % PROGRESS_EVERY === 0 && done < redo.length) progress?.(done, redo.length);
  }
  progress?.(redo.length, redo.length);
  return redo.length;
}
