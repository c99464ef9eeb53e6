// Groups questions by topic: clustering on the cosine similarity of their embeddings, in two steps. First a greedy
// pass: the most asked question opens the first group, each next one joins the group whose centroid is most similar
// when that similarity reaches the threshold, else opens a group of its own. The pass depends on the order questions
// come in (a terse phrasing met early stays alone), so then groups whose centroids reach the threshold are merged,
// each with its most similar (centroid linkage). O(questions x groups + groups² per sweep); the threshold is the only parameter.
import { dotAt, normalize } from '../indexes/cosine.js';

/**
 * Validated on paraphrase sets with the local model (all-MiniLM-L6-v2) in test/insights/question-groups.test.ts:
 * phrasings of one topic score 0.32-0.74 with each other (three terse phrasings of single sign-on 0.32-0.46, so 0.5
 * left them apart), higher with their group's centroid; unrelated questions score at most 0.45 with one of them and
 * less with a centroid. Every set groups the same from 0.4 to 0.5: 0.45 is the middle.
 */
export const defaultGroupingThreshold = 0.45;

export interface GroupedItem {
  readonly vector: Float32Array;
  /** How often it was asked: heavier items lead, and pull their group's centroid further. */
  readonly weight: number;
}

interface Group {
  members: number[];
  /** The members' unit vectors, each times its weight, summed. */
  sum: Float32Array;
  centroid: Float32Array;
  weight: number;
}

function addInto(sum: Float32Array, vector: Float32Array, weight: number): void {
  for (let dimension = 0; dimension < sum.length; dimension++)
    sum[dimension] = (sum[dimension] as number) + (vector[dimension] as number) * weight;
}

/** Indexes of `items` per group, largest total weight first; within a group, heaviest first. */
export function groupQuestions(items: readonly GroupedItem[], threshold = defaultGroupingThreshold): number[][] {
  const order = items.map((_, index) => index).sort((left, right) => (items[right]?.weight ?? 0) - (items[left]?.weight ?? 0));
  const groups: Group[] = [];
  for (const index of order) {
    const item = items[index] as GroupedItem;
    const vector = normalize(item.vector);
    let best: Group | undefined;
    let bestSimilarity = threshold;
    for (const group of groups) {
      const similarity = dotAt(group.centroid, 0, vector);
      if (similarity >= bestSimilarity) {
        best = group;
        bestSimilarity = similarity;
      }
    }
    if (best === undefined) {
      const sum = new Float32Array(vector.length);
      addInto(sum, vector, item.weight);
      groups.push({ members: [index], sum, centroid: vector, weight: item.weight });
      continue;
    }
    best.members.push(index);
    best.weight += item.weight;
    addInto(best.sum, vector, item.weight);
    best.centroid = normalize(best.sum);
  }
  return mergeSimilarGroups(groups, threshold)
    .sort((left, right) => right.weight - left.weight)
    .map((group) => group.members.sort((left, right) => (items[right]?.weight ?? 0) - (items[left]?.weight ?? 0)));
}

/**
 * Merges groups whose centroids reach the threshold: each group, largest first, takes in its most similar later group,
 * in sweeps until one merges nothing (a full rescan per merge would cost groups³).
 */
function mergeSimilarGroups(groups: Group[], threshold: number): Group[] {
  let live = [...groups];
  for (let merged = true; merged; ) {
    merged = false;
    const gone = new Set<Group>();
    for (const [position, group] of live.entries()) {
      if (gone.has(group)) continue;
      let best: Group | undefined;
      let bestSimilarity = threshold;
      for (const other of live.slice(position + 1)) {
        if (gone.has(other)) continue;
        const similarity = dotAt(group.centroid, 0, other.centroid);
        if (similarity >= bestSimilarity) {
          best = other;
          bestSimilarity = similarity;
        }
      }
      if (best === undefined) continue;
      group.members.push(...best.members);
      group.weight += best.weight;
      addInto(group.sum, best.sum, 1);
      group.centroid = normalize(group.sum);
      gone.add(best);
      merged = true;
    }
    live = live.filter((group) => !gone.has(group));
  }
  return live;
}
