import { compileMatcher, type GlobMatcher } from './glob.ts';
import type { BlackboardEvent, BlackboardListener, SubscriberFailure } from './blackboard-types.ts';

interface Subscription {
  pattern: string;
  matchType: GlobMatcher;
  matchKey: GlobMatcher | null;
  listener: BlackboardListener;
}

/**
 * Glob subscriptions to blackboard change events. Delivery is synchronous, in
 * subscription order, after the blackboard's state is already consistent. A
 * listener that throws (or returns a rejected promise) is reported through
 * `onError` and never affects the write or the other listeners.
 */
export class BlackboardEvents {
  private subs: Subscription[] = [];
  private failures = 0;

  constructor(private readonly onError: ((failure: SubscriberFailure) => void) | undefined) {}

  get errorCount(): number {
    return this.failures;
  }

  get hasListeners(): boolean {
    return this.subs.length > 0;
  }

  /** Returns the unsubscribe function. */
  subscribe(eventPattern: string, listener: BlackboardListener, keyPattern?: string): () => void {
    const sub: Subscription = {
      pattern: eventPattern,
      matchType: compileMatcher(eventPattern),
      matchKey: keyPattern === undefined ? null : compileMatcher(keyPattern),
      listener,
    };
    // Copy-on-write so a listener may (un)subscribe during delivery.
    this.subs = [...this.subs, sub];
    return () => {
      this.subs = this.subs.filter((s) => s !== sub);
    };
  }

  emit(event: BlackboardEvent): void {
    for (const sub of this.subs) {
      if (!sub.matchType(event.type)) continue;
      if (sub.matchKey !== null && !sub.matchKey(event.entry.key)) continue;
      try {
        const result = sub.listener(event);
        if (result && typeof (result as Promise<void>).then === 'function') {
          (result as Promise<void>).then(undefined, (error: unknown) => this.fail(sub, event, error));
        }
      } catch (error) {
        this.fail(sub, event, error);
      }
    }
  }

  private fail(sub: Subscription, event: BlackboardEvent, error: unknown): void {
    this.failures += 1;
    try {
      this.onError?.({ pattern: sub.pattern, event: event.type, key: event.entry.key, error });
    } catch {
      // The error hook itself failed; counting it is all that is left to do.
    }
  }
}
