import { MnemosError } from '../domain/errors.ts';
import type { EpisodicEvent } from './episodic-event.ts';
import { compileMatcher, type GlobMatcher } from './glob.ts';
import { renderEpisodeText } from './episode.ts';

export interface SafetyVerdict {
  approved: boolean;
  /** Why it was blocked (null when approved). */
  reason: string | null;
  /** Name of the verifier that decided. */
  verifier: string;
}

/**
 * The safety gate every buffered event passes before it becomes an episode
 * (the seed's EthicalVerificationEngine). A verifier that throws does not
 * block: the event stays buffered for the next sleep and the error is
 * reported, so an outage never silently drops memories nor lets them through.
 */
export interface SafetyVerifier {
  readonly name: string;
  verify(event: EpisodicEvent): SafetyVerdict | Promise<SafetyVerdict>;
}

/** What is kept of an event the gate refused. */
export interface BlockedRecord {
  eventId: string;
  blackboardKey: string;
  tick: number;
  salience: number;
  /** It was an always-consolidate (safety) event. */
  safety: boolean;
  reason: string;
  verifier: string;
  /** ISO time of the decision. */
  at: string;
}

export interface RuleBasedSafetyConfig {
  /** Key globs whose events are refused; `veto()` adds more at run time. */
  vetoGlobs?: readonly string[];
  /**
   * Content globs matched against the rendered episode text
   * (`<key> = <json value>`), e.g. `*"password":*`. Fixed for the verifier's life.
   */
  alwaysBlock?: readonly string[];
}

/** The built-in verifier: deterministic rules, no model. */
export class RuleBasedSafetyVerifier implements SafetyVerifier {
  readonly name = 'rules';
  private readonly vetoes = new Map<string, GlobMatcher>();
  private readonly contentRules: Array<[string, GlobMatcher]>;

  constructor(config: RuleBasedSafetyConfig = {}) {
    for (const g of config.vetoGlobs ?? []) this.veto(g);
    this.contentRules = (config.alwaysBlock ?? []).map((p) => [checkGlob(p, 'alwaysBlock'), compileMatcher(p)]);
  }

  /** From now on, refuse events whose key matches `glob`. */
  veto(glob: string): void {
    this.vetoes.set(checkGlob(glob, 'veto'), compileMatcher(glob));
  }

  /** Lifts a veto added before; returns whether it existed. */
  lift(glob: string): boolean {
    return this.vetoes.delete(glob);
  }

  get vetoGlobs(): string[] {
    return [...this.vetoes.keys()];
  }

  verify(event: EpisodicEvent): SafetyVerdict {
    for (const [glob, matches] of this.vetoes) {
      if (matches(event.blackboardKey)) return this.block(`key "${event.blackboardKey}" matches veto glob "${glob}"`);
    }
    if (this.contentRules.length > 0) {
      const text = renderEpisodeText(event.blackboardKey, event.valueSnapshot);
      for (const [pattern, matches] of this.contentRules) {
        if (matches(text)) return this.block(`content matches always-block pattern "${pattern}"`);
      }
    }
    return { approved: true, reason: null, verifier: this.name };
  }

  private block(reason: string): SafetyVerdict {
    return { approved: false, reason, verifier: this.name };
  }
}

function checkGlob(glob: string, field: string): string {
  if (typeof glob !== 'string' || glob.length === 0) {
    throw new MnemosError('validation_failed', `${field} pattern must be a non-empty glob, e.g. "safety.*"`, { field });
  }
  return glob;
}
