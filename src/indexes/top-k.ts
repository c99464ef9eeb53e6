// Keeps the k best-scoring numeric ids of a stream in a typed-array min-heap, without sorting everything.
// Ties go to the lower id (the earlier row or chunk), so results are deterministic.

export interface ScoredId {
  readonly id: number;
  readonly score: number;
}

export class TopK {
  private readonly ids: Uint32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.ids = new Uint32Array(Math.max(0, capacity));
    this.scores = new Float64Array(Math.max(0, capacity));
  }

  /** Lowest score that can still enter the list (-Infinity while it is not full). */
  get threshold(): number {
    return this.size < this.capacity ? Number.NEGATIVE_INFINITY : (this.scores[0] as number);
  }

  offer(id: number, score: number): void {
    if (this.size < this.capacity) {
      this.ids[this.size] = id;
      this.scores[this.size] = score;
      for (let child = this.size++; child > 0 && this.weaker(child, (child - 1) >> 1); child = (child - 1) >> 1)
        this.swap(child, (child - 1) >> 1);
    } else if (this.capacity > 0 && (score > (this.scores[0] as number) || (score === this.scores[0] && id < (this.ids[0] as number)))) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.siftDown(this.size);
    }
  }

  /** The kept ids, best first; empties the list. */
  drain(): ScoredId[] {
    const best: ScoredId[] = new Array(this.size);
    while (this.size > 0) {
      best[this.size - 1] = { id: this.ids[0] as number, score: this.scores[0] as number };
      this.swap(0, --this.size);
      this.siftDown(this.size);
    }
    return best;
  }

  private weaker(left: number, right: number): boolean {
    const leftScore = this.scores[left] as number;
    const rightScore = this.scores[right] as number;
    return leftScore < rightScore || (leftScore === rightScore && (this.ids[left] as number) > (this.ids[right] as number));
  }

  private swap(left: number, right: number): void {
    const id = this.ids[left] as number;
    this.ids[left] = this.ids[right] as number;
    this.ids[right] = id;
    const score = this.scores[left] as number;
    this.scores[left] = this.scores[right] as number;
    this.scores[right] = score;
  }

  private siftDown(size: number): void {
    for (let parent = 0; ; ) {
      const left = parent * 2 + 1;
      let weakest = parent;
      if (left < size && this.weaker(left, weakest)) weakest = left;
      if (left + 1 < size && this.weaker(left + 1, weakest)) weakest = left + 1;
      if (weakest === parent) return;
      this.swap(parent, weakest);
      parent = weakest;
    }
  }
}
