import type Database from 'better-sqlite3';

/**
 * Prepared statements by SQL text, for one connection. Scoped queries repeat
 * with few shapes, and preparing costs more than running most of them (a
 * search runs several). Bounded: cleared when full rather than grown forever.
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly max = 500,
  ) {}

  get(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      if (this.statements.size >= this.max) this.statements.clear();
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }
}
