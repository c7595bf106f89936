/**
 * The entity index (src/graph/entity-index.ts) answers every mention as the
 * plain scan `resolveMention` does over the same entities in the same order:
 * match, how, and the ids of an ambiguous answer in order. Checked on seeded
 * random scopes built to collide (shared first names and surnames, aliases,
 * one-letter typos, lone names, honorifics, mixed kinds) while entities are
 * changed the ways graph indexing changes them: an alias pushed, a fuller
 * display name, set aside and taken back, a new entity added.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeName } from '../../src/domain/name-keys.ts';
import { EntityIndex, type IndexableEntity } from '../../src/graph/entity-index.ts';
import { resolveMention } from '../../src/graph/resolve.ts';
import { mulberry32 as rng } from '../../src/embedding/builtin/prng.ts';

// Long names (6+ letters) so typos count; short ones (Joan/John) so they do not.
const FIRST = ['John', 'Joan', 'Jonathan', 'Jonathon', 'Marianne', 'Marianna', 'Alice', 'Robert', 'Roberta', 'Zoë', 'Zoe'];
const LAST = ['Smith', 'Smyth', 'Johnson', 'Johnsen', 'Williams', 'Wiliams', 'Brown', 'Garcia', 'Robert'];
const KINDS = ['person', 'name', 'org', 'place', 'other', 'handle', 'date', 'title'];

/** One letter changed, dropped or doubled. */
function typo(r: () => number, s: string): string {
  const i = Math.floor(r() * s.length);
  const roll = r();
  if (roll < 0.33) return s.slice(0, i) + 'x' + s.slice(i + 1);
  if (roll < 0.66) return s.slice(0, i) + s.slice(i + 1);
  return s.slice(0, i) + s[i] + s.slice(i);
}

function randomName(r: () => number): string {
  const at = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const roll = r();
  if (roll < 0.1) return at(FIRST);
  if (roll < 0.2) return `Dr. ${at(LAST)}`;
  if (roll < 0.25) return `@${at(FIRST).toLowerCase()}`;
  if (roll < 0.3) return `${at(FIRST)} ${at(FIRST)} ${at(LAST)}`;
  if (roll < 0.35) return `${typo(r, at(FIRST))} ${at(LAST)}`;
  if (roll < 0.4) return `${at(FIRST)} ${typo(r, at(LAST))}`;
  return `${at(FIRST)} ${at(LAST)}`;
}

/** What a text might call an entity: one of its names, a part of one, a typo, a case change, or something new. */
function randomMention(r: () => number, list: readonly IndexableEntity[]): { name: string; type: string } {
  const type = KINDS[Math.floor(r() * KINDS.length)]!;
  const e = list.length > 0 ? list[Math.floor(r() * list.length)]! : null;
  const roll = r();
  let name: string;
  if (!e || roll < 0.15) name = randomName(r);
  else if (roll < 0.3) name = e.name;
  else if (roll < 0.4) name = e.name.toUpperCase();
  else if (roll < 0.5 && e.aliases.length > 0) name = e.aliases[Math.floor(r() * e.aliases.length)]!;
  else if (roll < 0.7) {
    const parts = e.name.split(' ');
    name = parts[Math.floor(r() * parts.length)]!;
  } else if (roll < 0.85) {
    const parts = e.name.split(' ');
    const i = Math.floor(r() * parts.length);
    parts[i] = typo(r, parts[i]!);
    name = parts.join(' ');
  } else if (roll < 0.9) name = '...';
  else name = `${randomName(r)} ${e.norm.split(' ').at(-1)}`;
  return { name, type };
}

test('the entity index answers as the scan, ambiguous ids in order, while entities are added, aliased, renamed, set aside and taken back', () => {
  let compared = 0;
  const outcomes = new Map<string, number>();
  for (let seed = 1; seed <= 120; seed++) {
    const r = rng(seed); // seeded: a failure names the seed that reproduces it
    let list: IndexableEntity[] = [];
    const aside: IndexableEntity[] = [];
    const index = new EntityIndex<IndexableEntity>();
    let n = 0;
    const make = (): IndexableEntity => {
      const name = randomName(r);
      const e: IndexableEntity = { id: `e${++n}`, name, norm: normalizeName(name), type: KINDS[Math.floor(r() * KINDS.length)]!, aliases: [], mentions: 1 };
      if (r() < 0.3) e.aliases.push(randomName(r));
      return e;
    };
    // Some entities exist before the index is built, the rest arrive one by one.
    const first = Array.from({ length: 5 + Math.floor(r() * 30) }, make);
    list.push(...first);
    for (const e of first) index.add(e);
    for (let step = 0; step < 150; step++) {
      const roll = r();
      const pickOne = () => list[Math.floor(r() * list.length)]!;
      if (roll < 0.15) {
        const e = make();
        list.push(e);
        index.add(e);
      } else if (roll < 0.25 && list.length > 0) {
        index.addAlias(pickOne(), randomName(r));
      } else if (roll < 0.32 && list.length > 0) {
        index.rename(pickOne(), randomName(r));
      } else if (roll < 0.37 && list.length > 0) {
        const e = pickOne();
        list = list.filter((x) => x !== e);
        index.remove(e);
        aside.push(e);
      } else if (roll < 0.42 && aside.length > 0) {
        // Taken back as graph indexing reclaims: fields replaced while out of the index, then added at the end.
        const e = aside.splice(Math.floor(r() * aside.length), 1)[0]!;
        Object.assign(e, { name: e.name.toUpperCase(), type: KINDS[Math.floor(r() * KINDS.length)]!, aliases: [] });
        list.push(e);
        index.add(e);
      } else if (roll < 0.45 && list.length > 0) {
        const e = pickOne();
        const name = randomName(r);
        e.norm = normalizeName(name);
        index.refresh(e);
      }
      const mention = randomMention(r, list);
      const want = resolveMention(mention, list);
      assert.deepEqual(index.resolve(mention), want, `seed ${seed}, step ${step}: ${JSON.stringify(mention)}`);
      compared++;
      const label = want.kind === 'match' ? want.how : want.kind;
      outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
    }
    assert.deepEqual([...index.entities()], list, `seed ${seed}: the index keeps the scope's order`);
  }
  assert.equal(compared, 120 * 150);
  // The cases must exercise every step, or the comparison proves little.
  for (const label of ['exact', 'normalized', 'alias', 'surname', 'first_name', 'similar', 'ambiguous', 'new']) {
    assert.ok((outcomes.get(label) ?? 0) >= 20, `${label}: ${outcomes.get(label) ?? 0} of ${compared}`);
  }
});

test('the entity index: ambiguous ids in the order entities were added, kinds kept apart, a changed entity found by its new keys only', () => {
  const ent = (id: string, name: string, type = 'person', aliases: string[] = []): IndexableEntity => ({ id, name, norm: normalizeName(name), type, aliases, mentions: 1 });
  const johnD = ent('john-doe', 'John Doe');
  const johnS = ent('john-smith', 'John Smith');
  const handle = ent('h', '@john', 'handle');
  const index = new EntityIndex([johnD, johnS, handle]);
  assert.deepEqual(index.resolve({ name: 'John', type: 'name' }), { kind: 'ambiguous', ids: ['john-doe', 'john-smith'] });
  assert.deepEqual(index.resolve({ name: '@john', type: 'handle' }), { kind: 'match', id: 'h', how: 'exact' });
  assert.deepEqual(index.resolve({ name: '@john', type: 'person' }), { kind: 'new' });
  // Taken out and added again, John Doe comes last, as a reclaimed entity is pushed onto the scope's list.
  index.remove(johnD);
  assert.deepEqual(index.resolve({ name: 'John', type: 'name' }), { kind: 'match', id: 'john-smith', how: 'first_name' });
  index.add(johnD);
  assert.deepEqual(index.resolve({ name: 'John', type: 'name' }), { kind: 'ambiguous', ids: ['john-smith', 'john-doe'] });

  const e = ent('e1', 'Robert Brown');
  const idx = new EntityIndex([e, ent('e2', 'Alice Green')]);
  assert.equal(idx.resolve({ name: 'Bobby', type: 'name' }).kind, 'new');
  idx.addAlias(e, 'Bobby');
  assert.deepEqual(e.aliases, ['Bobby']);
  assert.deepEqual(idx.resolve({ name: 'Bobby', type: 'name' }), { kind: 'match', id: 'e1', how: 'alias' });
  idx.rename(e, 'Robert J. Brown');
  assert.equal(e.name, 'Robert J. Brown');
  assert.deepEqual(idx.resolve({ name: 'Robert J. Brown', type: 'name' }), { kind: 'match', id: 'e1', how: 'exact' });
  assert.deepEqual(idx.resolve({ name: 'Brown', type: 'name' }), { kind: 'match', id: 'e1', how: 'surname' });
  e.norm = 'robert black';
  idx.refresh(e);
  assert.equal(idx.resolve({ name: 'Brown', type: 'name' }).kind, 'new');
  assert.deepEqual(idx.resolve({ name: 'Black', type: 'name' }), { kind: 'match', id: 'e1', how: 'surname' });
  assert.deepEqual(idx.resolve({ name: 'Robert Blacck', type: 'name' }), { kind: 'new' }, 'Black is under six letters: no typo');
  // The index adds nothing to the entity: copies and JSON stay as they were.
  assert.deepEqual(Object.keys({ ...e }).sort(), ['aliases', 'id', 'mentions', 'name', 'norm', 'type']);
});
