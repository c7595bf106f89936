import { MnemosError } from '../domain/errors.ts';

/**
 * ECAN attention allocation (seed 001's ecan module; constants and formulas
 * from shared/reference/formulas.md, OpenCog's economic attention network).
 * STI is a currency: stimulus pays wages out of the bank, rent flows back
 * into it and spreading moves STI between atoms, so total STI plus bank
 * funds never changes. Everything is a pure function of the inputs and runs
 * in a fixed order (atoms by id), so the same ticks give the same numbers.
 */

export interface EcanConfig {
  /** W: the base STI wage per unit of stimulus. */
  stiWage: number;
  /** LTI paid per unit of stimulus (LTI is not a bank currency here). */
  ltiWage: number;
  /** Funds the bank steers towards. */
  targetFunds: number;
  /** How far funds may drift from the target before wages and rent saturate. */
  fundsBuffer: number;
  /** R: the starting rent per atom per collection. */
  startingRent: number;
  /** Atoms in the attentional focus. */
  focusSize: number;
  /** Share of its STI a focus atom spreads per tick. */
  maxSpreadPercentage: number;
  /** Largest share of the spread that goes along Hebbian links. */
  hebbianMaxAllocation: number;
  /** Atoms whose LTI is under this share of the highest LTI may be forgotten (unless VLTI). */
  ltiForgetThreshold: number;
}

export const ECAN_DEFAULTS: Readonly<EcanConfig> = Object.freeze({
  stiWage: 10,
  ltiWage: 10,
  targetFunds: 10_000,
  fundsBuffer: 10_000,
  startingRent: 1,
  focusSize: 100,
  maxSpreadPercentage: 0.4,
  hebbianMaxAllocation: 0.05,
  ltiForgetThreshold: 0.05,
});

/** STI is a 16-bit signed quantity in OpenCog. */
export const STI_MIN = -32768;
export const STI_MAX = 32767;

export interface AttentionValue {
  sti: number;
  lti: number;
  /** Very long-term importance: protects the atom from forgetting. */
  vlti: boolean;
}

/** An edge importance spreads along; both ends are neighbours of each other. */
export interface AttentionLink {
  source: string;
  target: string;
  /** Hebbian links carry strength and confidence; structural ones (Contains, EvidenceFor) do not. */
  hebbian?: { strength: number; confidence: number };
}

export interface TickReport {
  tick: number;
  wagesPaid: number;
  rentCollected: number;
  spread: number;
  funds: number;
  focus: string[];
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** STIWage = W + W·clamp((funds − target)/buffer, −1, 1): a rich bank pays up to 2W, a broke one nothing. */
export function stiWageFor(funds: number, cfg: EcanConfig = ECAN_DEFAULTS): number {
  return cfg.stiWage + cfg.stiWage * clamp((funds - cfg.targetFunds) / cfg.fundsBuffer, -1, 1);
}

/** Rent = R + R·clamp((target − funds)/buffer, −0.99, 1), and none while funds are at or above target. */
export function rentFor(funds: number, cfg: EcanConfig = ECAN_DEFAULTS): number {
  if (funds >= cfg.targetFunds) return 0;
  return cfg.startingRent + cfg.startingRent * clamp((cfg.targetFunds - funds) / cfg.fundsBuffer, -0.99, 1);
}

export class AttentionBank {
  readonly config: EcanConfig;
  private readonly atoms = new Map<string, AttentionValue>();
  private focusSet = new Set<string>();
  private fundsValue: number;
  private ticks = 0;

  constructor(config: Partial<EcanConfig> = {}, funds?: number) {
    this.config = { ...ECAN_DEFAULTS, ...config };
    for (const [k, v] of Object.entries(this.config)) {
      if (!Number.isFinite(v) || v < 0) throw new MnemosError('validation_failed', `ECAN ${k} must be a finite non-negative number, got ${v}`, { field: k });
    }
    if (this.config.fundsBuffer === 0) throw new MnemosError('validation_failed', 'ECAN fundsBuffer must be positive', { field: 'fundsBuffer' });
    if (!Number.isInteger(this.config.focusSize)) throw new MnemosError('validation_failed', `ECAN focusSize must be an integer, got ${this.config.focusSize}`, { field: 'focusSize' });
    if (this.config.maxSpreadPercentage > 1 || this.config.hebbianMaxAllocation > 1) throw new MnemosError('validation_failed', 'ECAN spread shares must be at most 1');
    this.fundsValue = funds ?? this.config.targetFunds;
    finite(this.fundsValue, 'funds');
  }

  get funds(): number {
    return this.fundsValue;
  }

  /** Bank funds plus every atom's STI: unchanged by stimulus, rent and spreading. */
  get total(): number {
    let sum = this.fundsValue;
    for (const id of this.ids()) sum += this.atoms.get(id)!.sti;
    return sum;
  }

  get(id: string): AttentionValue | undefined {
    const av = this.atoms.get(id);
    return av ? { ...av } : undefined;
  }

  /** Adds an atom with no importance; an existing one is left as it is. */
  add(id: string, options: { vlti?: boolean } = {}): void {
    if (typeof id !== 'string' || id.length === 0) throw new MnemosError('validation_failed', 'an ECAN atom needs a non-empty string id');
    const av = this.atoms.get(id);
    if (av) {
      if (options.vlti !== undefined) av.vlti = options.vlti;
      return;
    }
    this.atoms.set(id, { sti: 0, lti: 0, vlti: options.vlti ?? false });
  }

  /** Pays STIWage·s out of the bank (only what fits under the 16-bit STI ceiling) and LTIWage·s; returns the STI paid. */
  stimulate(id: string, s: number): number {
    finite(s, 'stimulus');
    if (s < 0) throw new MnemosError('validation_failed', `a stimulus must be non-negative, got ${s}`, { field: 'stimulus' });
    this.add(id);
    const av = this.atoms.get(id)!;
    const paid = Math.min(stiWageFor(this.fundsValue, this.config) * s, STI_MAX - av.sti);
    av.sti += paid;
    av.lti += this.config.ltiWage * s;
    this.fundsValue -= paid;
    return paid;
  }

  /** Every atom pays the current rent, but never more than the STI it has above 0. */
  collectRent(): number {
    const rent = rentFor(this.fundsValue, this.config);
    let collected = 0;
    if (rent === 0) return 0;
    for (const id of this.ids()) {
      const av = this.atoms.get(id)!;
      const take = Math.min(rent, Math.max(0, av.sti));
      av.sti -= take;
      collected += take;
    }
    this.fundsValue += collected;
    return collected;
  }

  /**
   * Keeps the focus at the top atoms by STI; a newcomer replaces the lowest
   * member only when its STI is strictly higher, so ties do not churn it.
   */
  updateFocus(): string[] {
    const size = this.config.focusSize;
    const members = [...this.focusSet].filter((id) => this.atoms.has(id));
    const byStiDesc = (a: string, b: string): number => this.atoms.get(b)!.sti - this.atoms.get(a)!.sti || (a < b ? -1 : a > b ? 1 : 0);
    members.sort(byStiDesc);
    const focus = members.slice(0, size);
    const outsiders = this.ids().filter((id) => !focus.includes(id)).sort(byStiDesc);
    for (const id of outsiders) {
      if (focus.length < size) {
        focus.push(id);
        focus.sort(byStiDesc);
        continue;
      }
      const lowest = focus[focus.length - 1];
      if (lowest === undefined || this.atoms.get(id)!.sti <= this.atoms.get(lowest)!.sti) break;
      focus[focus.length - 1] = id;
      focus.sort(byStiDesc);
    }
    this.focusSet = new Set(focus);
    return focus;
  }

  focus(): string[] {
    return [...this.focusSet].sort((a, b) => this.atoms.get(b)!.sti - this.atoms.get(a)!.sti || (a < b ? -1 : 1));
  }

  /**
   * Each focus atom with positive STI spreads STI·maxSpreadPercentage. Of it,
   * each of its k Hebbian links takes share·hebbianMaxAllocation·strength·confidence/k
   * (so at most hebbianMaxAllocation in all); the rest is split equally among
   * all its neighbours. Amounts come from the STI at the start of the spread;
   * what a neighbour cannot hold under the STI ceiling stays with the source.
   */
  spread(links: readonly AttentionLink[]): number {
    const neighbours = new Map<string, Map<string, number>>(); // atom -> neighbour -> Hebbian weight (0 for structural)
    for (const link of links) {
      if (link.source === link.target) continue;
      let w = 0;
      if (link.hebbian) {
        const { strength, confidence } = link.hebbian;
        if (!(strength >= 0 && strength <= 1 && confidence >= 0 && confidence <= 1)) {
          throw new MnemosError('validation_failed', `Hebbian link ${link.source} -> ${link.target} needs strength and confidence in [0, 1]`);
        }
        w = strength * confidence;
      }
      this.add(link.source);
      this.add(link.target);
      for (const [a, b] of [[link.source, link.target], [link.target, link.source]] as const) {
        let m = neighbours.get(a);
        if (!m) neighbours.set(a, (m = new Map()));
        m.set(b, Math.max(m.get(b) ?? 0, w));
      }
    }
    const sources = [...this.focusSet].filter((id) => this.atoms.has(id)).sort();
    const amounts = sources.map((id) => Math.max(0, this.atoms.get(id)!.sti) * this.config.maxSpreadPercentage);
    let moved = 0;
    sources.forEach((id, i) => {
      const amount = amounts[i]!;
      const near = neighbours.get(id);
      if (!near || near.size === 0 || amount === 0) return;
      const targets = [...near.keys()].sort();
      const hebbian = targets.filter((t) => near.get(t)! > 0);
      const shares = new Map<string, number>();
      let hebbianTotal = 0;
      for (const t of hebbian) {
        const share = (amount * this.config.hebbianMaxAllocation * near.get(t)!) / hebbian.length;
        shares.set(t, share);
        hebbianTotal += share;
      }
      const equal = (amount - hebbianTotal) / targets.length;
      const source = this.atoms.get(id)!;
      for (const t of targets) {
        const av = this.atoms.get(t)!;
        const give = Math.min((shares.get(t) ?? 0) + equal, STI_MAX - av.sti, Math.max(0, source.sti));
        if (give <= 0) continue;
        av.sti += give;
        source.sti -= give;
        moved += give;
      }
    });
    return moved;
  }

  /** Atoms whose LTI is under ltiForgetThreshold × the highest LTI, VLTI ones excepted, lowest first. */
  forgetCandidates(): string[] {
    let max = 0;
    for (const av of this.atoms.values()) max = Math.max(max, av.lti);
    if (max <= 0) return [];
    const limit = this.config.ltiForgetThreshold * max;
    return this.ids()
      .filter((id) => !this.atoms.get(id)!.vlti && this.atoms.get(id)!.lti < limit)
      .sort((a, b) => this.atoms.get(a)!.lti - this.atoms.get(b)!.lti || (a < b ? -1 : 1));
  }

  /** Removes an atom; its STI goes back to the bank so the total is kept. */
  remove(id: string): boolean {
    const av = this.atoms.get(id);
    if (!av) return false;
    this.fundsValue += av.sti;
    this.atoms.delete(id);
    this.focusSet.delete(id);
    return true;
  }

  /** One cycle: stimulus (atoms by id), focus, spreading, rent, focus again. */
  tick(input: { stimuli?: Readonly<Record<string, number>>; links?: readonly AttentionLink[] } = {}): TickReport {
    let wagesPaid = 0;
    for (const id of Object.keys(input.stimuli ?? {}).sort()) wagesPaid += this.stimulate(id, input.stimuli![id]!);
    this.updateFocus();
    const spread = this.spread(input.links ?? []);
    const rentCollected = this.collectRent();
    const focus = this.updateFocus();
    return { tick: ++this.ticks, wagesPaid, rentCollected, spread, funds: this.fundsValue, focus };
  }

  private ids(): string[] {
    return [...this.atoms.keys()].sort();
  }
}

function finite(x: number, name: string): void {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new MnemosError('validation_failed', `${name} must be a finite number, got ${x}`, { field: name });
}
