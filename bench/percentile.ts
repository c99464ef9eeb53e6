// The value below which `share` of the samples fall (nearest rank), for the benchmarks' p50 and p95 figures.
export function percentile(samples: readonly number[], share: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}
