/**
 * A binary min-heap on a numeric key. The blackboard uses it to find entries
 * whose TTL ran out without scanning every entry on every call.
 */
export class MinHeap<T> {
  private readonly keys: number[] = [];
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  push(key: number, item: T): void {
    this.keys.push(key);
    this.items.push(item);
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** The smallest key, or undefined when empty. */
  peekKey(): number | undefined {
    return this.keys[0];
  }

  pop(): T | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = this.items[0];
    this.swap(0, n - 1);
    this.keys.pop();
    this.items.pop();
    let i = 0;
    const m = n - 1;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < m && this.keys[l]! < this.keys[min]!) min = l;
      if (r < m && this.keys[r]! < this.keys[min]!) min = r;
      if (min === i) break;
      this.swap(i, min);
      i = min;
    }
    return top;
  }

  clear(): void {
    this.keys.length = 0;
    this.items.length = 0;
  }

  private swap(a: number, b: number): void {
    const k = this.keys[a]!;
    this.keys[a] = this.keys[b]!;
    this.keys[b] = k;
    const t = this.items[a]!;
    this.items[a] = this.items[b]!;
    this.items[b] = t;
  }
}
