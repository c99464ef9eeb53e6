// What retrieval needs from an embedding provider.

export interface EmbeddingModel {
  /** Recorded per namespace, so vectors of different models are never compared. */
  readonly id: string;
  /** One vector per text, in order. Throws a KnowledgeError `embedding_failed` when the provider fails. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Releases what the model holds (worker threads); absent when it holds nothing. */
  close?(): Promise<void>;
}
