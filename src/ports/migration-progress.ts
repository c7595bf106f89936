/**
 * How far a store's upgrade has got. Most migrations change the schema in
 * milliseconds; one that writes the full-text terms of stored texts again
 * runs for minutes on a large store, inside the store's open, and a surface
 * that said nothing meanwhile looked hung. Such a migration reports the texts
 * it has gone through.
 *
 * Events come only from those migrations and only when they find texts to
 * go through (an English store upgrades without any). For each migration
 * the first event has `done` 0, `done` never falls, `total` never falls, and
 * the last has `done === total`.
 */
export interface MigrationProgress {
  /** The migration's number in its backend's list (SQLite and PostgreSQL number theirs apart). */
  migration: number;
  /** What the migration does, as its list names it. */
  name: string;
  /** Texts gone through so far. */
  done: number;
  /** Texts to go through in all. */
  total: number;
}

/**
 * Called on the opening thread while the migration runs (SQLite's runs
 * synchronously: draw, don't wait). An error it throws aborts the migration,
 * which rolls back whole.
 */
export type MigrationProgressListener = (progress: MigrationProgress) => void;

/** A migration's own counter: `done` of `total` texts, turned into events by the migration runner. */
export type TextProgress = (done: number, total: number) => void;
