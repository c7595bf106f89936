import { MnemosError } from '../domain/errors.ts';
import { identifierArguments, predicateOf, symbolArg, textArg, type MemoryCluster } from './cluster.ts';
import { STATUS_PREDICATES, UNARY_PREDICATES } from './schema.ts';

/**
 * The journal's clusters in append order plus the look-up tables queries and
 * views need. Built incrementally as clusters are appended, so a 10,000-cluster
 * journal answers a query from a map instead of a scan. Journal-wide facts
 * (which status events are superseded, which ids are declared) live here too,
 * because a later cluster can supersede an event in an earlier one.
 */

export interface StatusMention {
  ordinal: number;
  status: string;
  subject: string;
  /** The StatusEvent id when the status comes from an event (so supersession can hide it). */
  event?: string;
}

interface StatusEventInfo {
  ordinal: number;
  atomIndex: number;
  subject?: string;
  value?: string;
}

export class JournalSnapshot {
  private readonly list: MemoryCluster[] = [];
  private readonly byCluster = new Map<string, number>();
  private readonly declared = new Map<string, number>();
  readonly mentions = new Map<string, number[]>();
  readonly types = new Map<string, number[]>();
  readonly about = new Map<string, number[]>();
  readonly roles = new Map<string, number[]>();
  readonly statuses = new Map<string, StatusMention[]>();
  private readonly statusEvents = new Map<string, StatusEventInfo>();
  private readonly eventsBySubject = new Map<string, string[]>();
  private readonly superseded = new Set<string>();
  /** Latest HasStatus / ClusterStatus per subject, the fallback when a subject has no events. */
  private readonly plainStatus = new Map<string, string>();

  static of(clusters: Iterable<MemoryCluster>): JournalSnapshot {
    const s = new JournalSnapshot();
    for (const c of clusters) s.add(c);
    return s;
  }

  get size(): number {
    return this.list.length;
  }

  clusters(): readonly MemoryCluster[] {
    return this.list;
  }

  at(ordinal: number): MemoryCluster {
    const c = this.list[ordinal];
    if (!c) throw new MnemosError('not_found', `no cluster at position ${ordinal}`);
    return c;
  }

  ordinalOf(clusterId: string): number | undefined {
    return this.byCluster.get(clusterId);
  }

  /** Cluster position where `id` is declared (by a unary predicate), if any. */
  declaredIn(id: string): number | undefined {
    return this.declared.get(id);
  }

  isSuperseded(eventId: string): boolean {
    return this.superseded.has(eventId);
  }

  add(cluster: MemoryCluster): number {
    const ordinal = this.list.length;
    this.list.push(cluster);
    this.byCluster.set(cluster.id, ordinal);
    const seen = new Set<string>();
    cluster.atoms.forEach((atom, atomIndex) => {
      const pred = predicateOf(atom);
      if (pred === undefined || atom.kind !== 'expr') return;
      for (const id of identifierArguments(atom)) {
        if (seen.has(id)) continue;
        seen.add(id);
        push(this.mentions, id, ordinal);
      }
      const subject = symbolArg(atom, 0);
      if (subject === undefined) return;
      if (UNARY_PREDICATES.has(pred)) {
        if (!this.declared.has(subject)) this.declared.set(subject, ordinal);
        pushOnce(this.types, pred, ordinal);
        if (pred === 'StatusEvent') this.event(subject, ordinal, atomIndex);
        return;
      }
      const object = textArg(atom, 1);
      if (object === undefined) return;
      if (pred === 'About') pushOnce(this.about, object, ordinal);
      else if (pred === 'EpistemicRole') pushOnce(this.roles, object, ordinal);
      else if (STATUS_PREDICATES.has(pred)) {
        push(this.statuses, object, { ordinal, status: object, subject });
        this.plainStatus.set(subject, object);
      } else if (pred === 'StatusSubject') {
        this.event(subject, ordinal, atomIndex).subject = object;
        push(this.eventsBySubject, object, subject);
      }
      else if (pred === 'StatusValue') {
        this.event(subject, ordinal, atomIndex).value = object;
        push(this.statuses, object, { ordinal, status: object, subject, event: subject });
      } else if (pred === 'Supersedes') this.superseded.add(object);
    });
    return ordinal;
  }

  private event(id: string, ordinal: number, atomIndex: number): StatusEventInfo {
    let info = this.statusEvents.get(id);
    if (!info) {
      info = { ordinal, atomIndex };
      this.statusEvents.set(id, info);
    }
    return info;
  }

  /**
   * Current status of a subject: its latest StatusEvent that no other event
   * Supersedes; without events, its latest HasStatus/ClusterStatus.
   */
  currentStatus(subject: string): { status: string; event?: string } | undefined {
    let best: [string, StatusEventInfo] | undefined;
    for (const id of this.eventsBySubject.get(subject) ?? []) {
      const info = this.statusEvents.get(id)!;
      if (info.subject !== subject || info.value === undefined || this.superseded.has(id)) continue;
      if (!best || info.ordinal > best[1].ordinal || (info.ordinal === best[1].ordinal && info.atomIndex > best[1].atomIndex)) best = [id, info];
    }
    if (best) return { status: best[1].value!, event: best[0] };
    const plain = this.plainStatus.get(subject);
    return plain === undefined ? undefined : { status: plain };
  }

  /** Status mentions with superseded status events left out. */
  liveStatusMentions(status: string): StatusMention[] {
    return (this.statuses.get(status) ?? []).filter((m) => m.event === undefined || !this.superseded.has(m.event));
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function pushOnce(map: Map<string, number[]>, key: string, ordinal: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [ordinal]);
  else if (list[list.length - 1] !== ordinal) list.push(ordinal);
}
