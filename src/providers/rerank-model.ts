// What the rerank stage of a search needs from a rerank model: a relevance score for each candidate text.

export interface RerankModel {
  /** The model's name, as the provider knows it. */
  readonly id: string;
  /**
   * One relevance score per document, in the documents' order; higher is more relevant (the scale is the model's).
   * Throws a KnowledgeError `provider_error` when the provider fails, and the caller's abort as it is.
   */
  score(query: string, documents: readonly string[], signal?: AbortSignal): Promise<number[]>;
}
