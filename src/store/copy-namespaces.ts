// Copies every namespace of one store into another (a storage root into PostgreSQL, or back): documents with their
// Markdown, file names and vectors, so moving between the two layouts needs no re-ingest and no re-embedding.
import type { KnowledgeStore } from './knowledge-store.js';
import type { Namespace } from './namespace.js';
import type { DocumentDraft } from './stored-document.js';

/** Documents committed together: one journal append or one transaction each. */
const documentsPerCommit = 100;

export interface CopiedNamespace {
  readonly name: string;
  readonly documents: number;
  readonly saved: number;
  readonly vectors: number;
}

export async function copyNamespaces(
  from: KnowledgeStore,
  to: KnowledgeStore,
  onCopied: (copied: CopiedNamespace) => void,
): Promise<CopiedNamespace[]> {
  const copied: CopiedNamespace[] = [];
  for (const name of await from.namespaceNames()) {
    const source = await from.namespace(name);
    const result = await copyNamespace(source, await to.namespace(name));
    copied.push(result);
    onCopied(result);
  }
  return copied;
}

async function copyNamespace(source: Namespace, target: Namespace): Promise<CopiedNamespace> {
  const model = source.embeddingModel;
  const documents = source.documents;
  let saved = 0;
  let vectors = 0;
  for (let start = 0; start < documents.length; start += documentsPerCommit) {
    const drafts: DocumentDraft[] = [];
    for (const document of documents.slice(start, start + documentsPerCommit)) {
      const body = await source.documentBody(document.file);
      if (body === undefined) continue;
      const chunks = document.chunks.map((chunk) => ({
        text: chunk.text,
        headingPath: chunk.headingPath,
        embedding: source.vectorOf(chunk.id) ?? null,
      }));
      vectors += chunks.filter((chunk) => chunk.embedding !== null).length;
      drafts.push({
        title: document.title,
        origin: document.origin,
        file: document.file,
        body,
        hash: document.hash,
        embeddingModel: model,
        chunks,
      });
    }
    const outcomes = await target.commitDocuments(drafts);
    saved += outcomes.filter((outcome) => outcome.status !== 'skipped').length;
  }
  await target.settle();
  return { name: source.name, documents: documents.length, saved, vectors };
}
