import type { EpisodicEvent } from './episodic-event.ts';
import type { BlockedRecord, SafetyVerdict, SafetyVerifier } from './safety.ts';

export interface GateOutcome {
  approved: EpisodicEvent[];
  blocked: BlockedRecord[];
  /** The verifier failed on these: they go back to the buffer, neither approved nor blocked. */
  deferred: EpisodicEvent[];
  errors: string[];
}

/**
 * Runs every event through the verifier, one at a time and in order, so a
 * verifier with rate limits or side effects sees a predictable sequence.
 */
export async function passSafetyGate(events: readonly EpisodicEvent[], verifier: SafetyVerifier, at: string): Promise<GateOutcome> {
  const out: GateOutcome = { approved: [], blocked: [], deferred: [], errors: [] };
  for (const event of events) {
    let verdict: SafetyVerdict;
    try {
      const v = verifier.verify(event);
      // Sync verifiers (the built-in one) skip the await: 1,000 events, 1,000 fewer microtasks.
      verdict = v instanceof Promise ? await v : v;
    } catch (err) {
      out.deferred.push(event);
      out.errors.push(`verifier ${verifier.name} failed on ${event.blackboardKey}: ${(err as Error).message}`);
      continue;
    }
    if (verdict.approved) out.approved.push(event);
    else out.blocked.push(blockedRecord(event, verdict, at));
  }
  return out;
}

export function blockedRecord(event: EpisodicEvent, verdict: SafetyVerdict, at: string): BlockedRecord {
  return {
    eventId: event.eventId,
    blackboardKey: event.blackboardKey,
    tick: event.tick,
    salience: event.salience,
    safety: event.alwaysConsolidate,
    reason: verdict.reason ?? 'blocked',
    verifier: verdict.verifier,
    at,
  };
}
