// What a deployment holds: namespaces and their documents, listed and deleted.
import { KnowledgeError } from '../errors.js';
import type { KnowledgeStore } from '../store/knowledge-store.js';
import type { Namespace } from '../store/namespace.js';
import type { StoredDocument } from '../store/stored-document.js';
import type { NamespaceName } from '../store/namespace-name.js';

export interface NamespaceSummary {
  readonly name: string;
  readonly documents: number;
  readonly chunks: number;
  /** The model of the namespace's vectors, null while none are stored. */
  readonly embeddingModel: string | null;
}

export class CatalogService {
  constructor(private readonly store: KnowledgeStore) {}

  /** Closed namespaces are not loaded for this: their counts come from their storage, or from when they were last loaded. */
  async namespaces(): Promise<NamespaceSummary[]> {
    return (await this.store.namespaceCounts()).map(({ name, documents, chunks, embeddingModel }) => ({
      name,
      documents,
      chunks,
      embeddingModel,
    }));
  }

  async documents(namespaceName: NamespaceName): Promise<{ namespace: string; documents: readonly StoredDocument[] }> {
    return this.withRequired(namespaceName, async (namespace) => ({
      namespace: namespace.name,
      documents: [...namespace.documents].sort((left, right) => left.file.localeCompare(right.file)),
    }));
  }

  /** One document and its Markdown; 404 for an unknown namespace or file. */
  async document(namespaceName: NamespaceName, file: string): Promise<{ namespace: string; document: StoredDocument; markdown: string }> {
    return this.withRequired(namespaceName, (namespace) => this.documentIn(namespace, file));
  }

  private async documentIn(namespace: Namespace, file: string): Promise<{ namespace: string; document: StoredDocument; markdown: string }> {
    const document = namespace.document(file);
    const markdown = document === undefined ? undefined : await namespace.documentBody(file).catch(() => undefined);
    if (document === undefined || markdown === undefined)
      throw new KnowledgeError('not_found', `namespace "${namespace.name}" has no document ${JSON.stringify(file)}`);
    return { namespace: namespace.name, document, markdown };
  }

  /** Deletes the documents with this file name or origin (the API's `source`); 404 when none matches. */
  async deleteDocuments(
    namespaceName: NamespaceName,
    match: { readonly file?: string; readonly origin?: string },
  ): Promise<{ namespace: string; deleted: readonly StoredDocument[] }> {
    return this.withRequired(namespaceName, async (namespace) => {
      const deleted = await namespace.deleteDocuments(match);
      if (deleted.length === 0) {
        const what = match.file !== undefined ? `file ${JSON.stringify(match.file)}` : `source ${JSON.stringify(match.origin)}`;
        throw new KnowledgeError('not_found', `namespace "${namespace.name}" has no document with ${what}`);
      }
      return { namespace: namespace.name, deleted };
    });
  }

  async deleteNamespace(namespaceName: NamespaceName): Promise<void> {
    if (!(await this.store.deleteNamespace(namespaceName)))
      throw new KnowledgeError('not_found', `there is no namespace "${namespaceName}"`);
  }

  /** Runs `use` over the namespace, held open meanwhile; 404 when there is none. */
  private withRequired<T>(namespaceName: NamespaceName, use: (namespace: Namespace) => Promise<T>): Promise<T> {
    return this.store.withExistingNamespace(namespaceName, (namespace) => {
      if (namespace === undefined) throw new KnowledgeError('not_found', `there is no namespace "${namespaceName}"`);
      return use(namespace);
    });
  }
}
