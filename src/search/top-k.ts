// Keeps the k best (highest-scoring) items of a stream with a small min-heap, without sorting everything.

export interface Scored<T> {
  readonly item: T;
  readonly score: number;
}

export class TopK<T> {
  private readonly heap: Scored<T>[] = [];

  constructor(private readonly capacity: number) {}

  /** Lowest score that still enters the list, or -Infinity while it is not full. */
  get threshold(): number {
    return this.heap.length < this.capacity ? Number.NEGATIVE_INFINITY : (this.heap[0] as Scored<T>).score;
  }

  offer(item: T, score: number): void {
    if (this.capacity <= 0) return;
    if (this.heap.length < this.capacity) {
      this.heap.push({ item, score });
      this.siftUp(this.heap.length - 1);
    } else if (score > (this.heap[0] as Scored<T>).score) {
      this.heap[0] = { item, score };
      this.siftDown(0);
    }
  }

  /** Best first. */
  sorted(): Scored<T>[] {
    return [...this.heap].sort((left, right) => right.score - left.score);
  }

  private siftUp(start: number): void {
    let child = start;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if ((this.heap[parent] as Scored<T>).score <= (this.heap[child] as Scored<T>).score) return;
      this.swap(parent, child);
      child = parent;
    }
  }

  private siftDown(start: number): void {
    let parent = start;
    for (;;) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < this.heap.length && (this.heap[left] as Scored<T>).score < (this.heap[smallest] as Scored<T>).score) smallest = left;
      if (right < this.heap.length && (this.heap[right] as Scored<T>).score < (this.heap[smallest] as Scored<T>).score) smallest = right;
      if (smallest === parent) return;
      this.swap(parent, smallest);
      parent = smallest;
    }
  }

  private swap(first: number, second: number): void {
    const held = this.heap[first] as Scored<T>;
    this.heap[first] = this.heap[second] as Scored<T>;
    this.heap[second] = held;
  }
}
