// Vector math for embedding search: L2 normalization and dot products over Float32Array rows.

/** Returns a unit-length copy (a zero vector stays zero). */
export function normalize(vector: ArrayLike<number>): Float32Array {
  let sumOfSquares = 0;
  for (let index = 0; index < vector.length; index++) sumOfSquares += (vector[index] as number) ** 2;
  const scale = sumOfSquares > 0 ? 1 / Math.sqrt(sumOfSquares) : 0;
  const unit = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index++) unit[index] = (vector[index] as number) * scale;
  return unit;
}

/** Dot product of `query` with the row starting at `offset` in `matrix` (cosine, for unit vectors). */
export function dotAt(matrix: Float32Array, offset: number, query: Float32Array): number {
  const length = query.length;
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  let index = 0;
  // Four accumulators let the JIT keep independent chains in flight.
  for (; index + 3 < length; index += 4) {
    sum0 += (matrix[offset + index] as number) * (query[index] as number);
    sum1 += (matrix[offset + index + 1] as number) * (query[index + 1] as number);
    sum2 += (matrix[offset + index + 2] as number) * (query[index + 2] as number);
    sum3 += (matrix[offset + index + 3] as number) * (query[index + 3] as number);
  }
  for (; index < length; index++) sum0 += (matrix[offset + index] as number) * (query[index] as number);
  return sum0 + sum1 + sum2 + sum3;
}

export function cosineSimilarity(left: ArrayLike<number>, right: ArrayLike<number>): number {
  return dotAt(normalize(left), 0, normalize(right));
}
