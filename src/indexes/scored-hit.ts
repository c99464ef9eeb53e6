// A search hit as every ranking stage passes it on: the chunk's key and its score, higher is better.

export interface ScoredHit {
  readonly key: string;
  readonly score: number;
}
