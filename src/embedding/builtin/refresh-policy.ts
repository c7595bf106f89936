/**
 * When the built-in embedder's learned model is due for (re)training. Pure,
 * so the rule is tested as a table; consolidation asks it on every run.
 *
 * The first model waits for enough text to learn anything from; after that
 * a model is retrained once the namespace has grown by `growth` times its
 * size at the last training. Growth, not age: a store that does not change
 * gains nothing from relearning the same text, and a store that doubles has
 * new words and new neighbours for old ones.
 */
export interface ModelRefreshInput {
  /** Current memories in the namespace now. */
  texts: number;
  /** Current memories the namespace held when its model was trained; null while there is no model. */
  trainedAtSize: number | null;
  /** The fewest texts a first model is trained from. */
  minTexts: number;
  /** Retrain once the namespace holds this many times its size at the last training (> 1). */
  growth: number;
}

export interface ModelRefreshDecision {
  due: boolean;
  /** Why, in words a report can show. */
  reason: string;
}

export function modelRefreshDue(x: ModelRefreshInput): ModelRefreshDecision {
  if (x.trainedAtSize === null) {
    return x.texts >= x.minTexts
      ? { due: true, reason: `no learned model yet and ${x.texts} memories to learn from` }
      : { due: false, reason: `no learned model yet: training starts at ${x.minTexts} memories (${x.texts} now)` };
  }
  const next = Math.max(x.minTexts, Math.ceil(x.trainedAtSize * x.growth));
  return x.texts >= next
    ? { due: true, reason: `the namespace grew from ${x.trainedAtSize} memories at the last training to ${x.texts}` }
    : { due: false, reason: `the model learned from ${x.trainedAtSize} memories; it is retrained at ${next} (${x.texts} now)` };
}
