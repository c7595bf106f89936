// Row mapping is shared by every SQL adapter; it lives in ../sql/rows.ts.
export * from '../sql/rows.ts';
