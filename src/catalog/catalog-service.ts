// What a deployment holds: namespaces and their documents, listed and deleted.
import { KnowledgeError } from '../errors.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import type { StoredDocument } from '../store/stored-document.js';

export interface NamespaceSummary {
  readonly name: string;
  readonly documents: number;
  readonly chunks: number;
  /** The model of the namespace's vectors, null while none are stored. */
  readonly embeddingModel: string | null;
}

export class CatalogService {
  constructor(private readonly store: KnowledgeStore) {}

  async namespaces(): Promise<NamespaceSummary[]> {
    const summaries: NamespaceSummary[] = [];
    for (const name of await this.store.namespaceNames()) {
      const namespace = await this.store.existingNamespace(name).catch(() => undefined);
      if (namespace === undefined) continue;
      summaries.push({
        name,
        documents: namespace.documents.length,
        chunks: namespace.chunkCount,
        embeddingModel: namespace.embeddingModel,
      });
    }
    return summaries;
  }

  async documents(namespaceName: string): Promise<{ namespace: string; documents: readonly StoredDocument[] }> {
    const namespace = await this.require(namespaceName);
    return { namespace: namespace.name, documents: [...namespace.documents].sort((left, right) => left.file.localeCompare(right.file)) };
  }

  /** One document and its Markdown; 404 for an unknown namespace or file. */
  async document(namespaceName: string, file: string): Promise<{ namespace: string; document: StoredDocument; markdown: string }> {
    const namespace = await this.require(namespaceName);
    const document = namespace.document(file);
    const markdown = document === undefined ? undefined : await namespace.documentBody(file).catch(() => undefined);
    if (document === undefined || markdown === undefined)
      throw new KnowledgeError('not_found', `namespace "${namespace.name}" has no document ${JSON.stringify(file)}`);
    return { namespace: namespace.name, document, markdown };
  }

  /** Deletes the documents with this file name or origin (the API's `source`); 404 when none matches. */
  async deleteDocuments(
    namespaceName: string,
    match: { readonly file?: string; readonly origin?: string },
  ): Promise<{ namespace: string; deleted: readonly StoredDocument[] }> {
    const namespace = await this.require(namespaceName);
    const deleted = await namespace.deleteDocuments(match);
    if (deleted.length === 0) {
      const what = match.file !== undefined ? `file ${JSON.stringify(match.file)}` : `source ${JSON.stringify(match.origin)}`;
      throw new KnowledgeError('not_found', `namespace "${namespace.name}" has no document with ${what}`);
    }
    return { namespace: namespace.name, deleted };
  }

  async deleteNamespace(namespaceName: string): Promise<void> {
    if (!(await this.store.deleteNamespace(namespaceName)))
      throw new KnowledgeError('not_found', `there is no namespace "${namespaceName}"`);
  }

  private async require(namespaceName: string): Promise<Namespace> {
    const namespace = await this.store.existingNamespace(namespaceName);
    if (namespace === undefined) throw new KnowledgeError('not_found', `there is no namespace "${namespaceName}"`);
    return namespace;
  }
}
