import { BACKEND, rawSql } from './backend.ts';

/** The migration that re-analyses texts of scripts without spaces: SQLite and PostgreSQL number theirs apart. */
export const REANALYSIS_MIGRATION = BACKEND === 'sqlite' ? 14 : 15;

/**
 * Puts a store's schema back to just before that migration, as a store the
 * previous release wrote: its next open runs the migration (and every later
 * one) again over the texts the store holds.
 */
export async function backBeforeReanalysis(db: string): Promise<void> {
  if (BACKEND === 'sqlite') await rawSql(db, `PRAGMA user_version = ${REANALYSIS_MIGRATION - 1}`);
  else {
    // That release had no later migration either (16: the store identity table).
    await rawSql(db, 'DROP TABLE IF EXISTS mnemos_store_identity');
    await rawSql(db, 'DELETE FROM mnemos_schema WHERE version >= ?', REANALYSIS_MIGRATION);
  }
}

/** `n` distinct texts the migration goes through: Thai, Chinese and Japanese, none with a space inside a word. */
export function spacelessTexts(n: number): string[] {
  const kinds = ['ไปทำงานที่กรุงเทพ', '我的猫很可爱', '東京タワーに行きました'];
  return Array.from({ length: n }, (_, i) => `${kinds[i % kinds.length]} ${i}`);
}
