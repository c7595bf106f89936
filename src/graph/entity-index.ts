import type { EntityKind } from './extraction.ts';
import { normalizeName } from '../domain/name-keys.ts';
import { compatibleKinds, hasFullName, isPersonish, oneTokenTypo, pick, TYPO_MIN_LENGTH, type ResolvableEntity, type Resolution } from './resolve.ts';

/**
 * The entities of one scope, keyed for resolution: each step of the rule in
 * resolve.ts (exact name, name key, alias key, surname, first name, short
 * form, one-token typo) looks its candidates up instead of scanning every
 * entity of the scope, and answers exactly as `resolveMention` does over the
 * entities in the order they were added.
 *
 * The keys are worked out when an entity is added, so an entity changed in
 * place must be changed through `addAlias` / `rename` (or `refresh` after any
 * other change), or the index answers from what it was.
 */
export interface IndexableEntity extends ResolvableEntity {
  aliases: string[];
}

/** What an entity was keyed under, so it can be taken out of its buckets whatever became of its fields. */
interface Entry {
  /** Order of addition: an ambiguous answer lists ids in this order, as the scan lists them in list order. */
  seq: number;
  name: string;
  norm: string;
  tokens: readonly string[];
  aliasNorms: string[];
}

type Buckets<E> = Map<string, Set<E>>;

function put<E>(b: Buckets<E>, key: string, e: E): void {
  const set = b.get(key);
  if (set) set.add(e);
  else b.set(key, new Set([e]));
}

function drop<E>(b: Buckets<E>, key: string, e: E): void {
  const set = b.get(key);
  if (!set) return;
  set.delete(e);
  if (set.size === 0) b.delete(key);
}

/**
 * The key of a multi-token name with token `i` left out: two names of as many
 * tokens that differ only at `i` share it. Tokens hold no space, so the rest
 * joined by spaces is unambiguous once the count and position are in the key.
 */
function typoKey(tokens: readonly string[], i: number): string {
  return `${tokens.length}:${i}:${tokens.slice(0, i).join(' ')}|${tokens.slice(i + 1).join(' ')}`;
}

export class EntityIndex<E extends IndexableEntity> {
  private readonly entries = new Map<E, Entry>();
  private nextSeq = 0;
  private readonly byName: Buckets<E> = new Map();
  private readonly byNorm: Buckets<E> = new Map();
  private readonly byAlias: Buckets<E> = new Map();
  /** Last and first token of names of two tokens or more. */
  private readonly byLast: Buckets<E> = new Map();
  private readonly byFirst: Buckets<E> = new Map();
  /** typoKey at each position whose token is long enough for the typo rule, names of two tokens or more. */
  private readonly byTypo: Buckets<E> = new Map();

  constructor(entities: Iterable<E> = []) {
    for (const e of entities) this.add(e);
  }

  /** The entities in the order they were added (an entity taken out and added again comes last). */
  entities(): IterableIterator<E> {
    return this.entries.keys();
  }

  /** Adds an entity at the end; one already in keeps its place. */
  add(e: E): void {
    if (this.entries.has(e)) return;
    const entry: Entry = { seq: this.nextSeq++, name: e.name, norm: e.norm, tokens: e.norm.split(' '), aliasNorms: e.aliases.map(normalizeName) };
    this.entries.set(e, entry);
    this.keyUnder(e, entry);
  }

  remove(e: E): void {
    const entry = this.entries.get(e);
    if (!entry) return;
    this.unkey(e, entry);
    this.entries.delete(e);
  }

  /** Pushes an alias onto an entity of this index and keys it. */
  addAlias(e: E, alias: string): void {
    e.aliases.push(alias);
    const entry = this.entries.get(e);
    if (!entry) return;
    const norm = normalizeName(alias);
    entry.aliasNorms.push(norm);
    put(this.byAlias, norm, e);
  }

  /** Replaces an entity's display name (its name key stays: graph indexing keeps the first one). */
  rename(e: E, name: string): void {
    const entry = this.entries.get(e);
    e.name = name;
    if (!entry) return;
    drop(this.byName, entry.name, e);
    entry.name = name;
    put(this.byName, name, e);
  }

  /** Keys an entity again after some other change in place, keeping its place in the order. */
  refresh(e: E): void {
    const entry = this.entries.get(e);
    if (!entry) return;
    this.unkey(e, entry);
    const next: Entry = { seq: entry.seq, name: e.name, norm: e.norm, tokens: e.norm.split(' '), aliasNorms: e.aliases.map(normalizeName) };
    this.entries.set(e, next);
    this.keyUnder(e, next);
  }

  /** What `resolveMention(mention, [...this.entities()])` answers, by look-up. */
  resolve(mention: { name: string; type: EntityKind | string }): Resolution {
    const norm = normalizeName(mention.name);
    if (!norm) return { kind: 'new' };
    const type = mention.type;
    const exact = pick(this.ids(this.byName.get(mention.name), type), 'exact');
    if (exact) return exact;
    const normalized = pick(this.ids(this.byNorm.get(norm), type), 'normalized');
    if (normalized) return normalized;
    const alias = pick(this.ids(this.byAlias.get(norm), type), 'alias');
    if (alias) return alias;
    if (!isPersonish(type)) return { kind: 'new' };

    const tokens = norm.split(' ');
    if (tokens.length === 1) {
      return pick(this.ids(this.byLast.get(norm), type), 'surname') ?? pick(this.ids(this.byFirst.get(norm), type), 'first_name') ?? { kind: 'new' };
    }
    // The short form: an entity whose whole name key is the mention's last token (a key without a space has one
    // token), still known by that one name only.
    const shortForm = pick(this.ids(this.byNorm.get(tokens[tokens.length - 1]!), type, (x) => !hasFullName(x)), 'surname');
    if (shortForm) return shortForm;
    const near = new Set<E>();
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i]!.length < TYPO_MIN_LENGTH) continue;
      for (const e of this.byTypo.get(typoKey(tokens, i)) ?? []) if (oneTokenTypo(this.entries.get(e)!.tokens, tokens)) near.add(e);
    }
    return pick(this.ids(near, type), 'similar') ?? { kind: 'new' };
  }

  /** The ids of the kind-compatible entities of a bucket that pass `keep`, in the order of addition. */
  private ids(found: Set<E> | undefined, type: string, keep?: (e: E) => boolean): string[] {
    if (!found || found.size === 0) return [];
    const hits: { seq: number; id: string }[] = [];
    for (const e of found) if (compatibleKinds(e.type, type) && (!keep || keep(e))) hits.push({ seq: this.entries.get(e)!.seq, id: e.id });
    if (hits.length > 1) hits.sort((a, b) => a.seq - b.seq);
    return hits.map((h) => h.id);
  }

  private keyUnder(e: E, entry: Entry): void {
    this.eachKey(entry, (b, key) => put(b, key, e));
  }

  private unkey(e: E, entry: Entry): void {
    this.eachKey(entry, (b, key) => drop(b, key, e));
  }

  /** Every bucket and key an entry is filed under: one list, so adding and removing cannot disagree. */
  private eachKey(entry: Entry, visit: (b: Buckets<E>, key: string) => void): void {
    visit(this.byName, entry.name);
    visit(this.byNorm, entry.norm);
    for (const a of entry.aliasNorms) visit(this.byAlias, a);
    const t = entry.tokens;
    if (t.length < 2) return;
    visit(this.byLast, t[t.length - 1]!);
    visit(this.byFirst, t[0]!);
    for (let i = 0; i < t.length; i++) if (t[i]!.length >= TYPO_MIN_LENGTH) visit(this.byTypo, typoKey(t, i));
  }
}
