// Copies every namespace of one store into another (a storage root into PostgreSQL, or back): documents with their
// Markdown, file names and vectors, so moving between the two layouts needs no re-ingest and no re-embedding; and what
// is kept with a namespace beside its documents: its registered sources with their refresh state, and its question
// log. Copying again copies nothing twice.
import type { KnowledgeStore } from './knowledge-store.js';
import type { NamespaceName } from './namespace-name.js';
import type { Namespace } from './namespace.js';
import type { QuestionLog, QuestionLogRecord } from './question-log.js';
import type { SourceRegistry } from './source-registry.js';
import type { DocumentDraft } from './stored-document.js';

/** Documents committed together: one journal append or one transaction each. */
const documentsPerCommit = 100;

export interface CopiedNamespace {
  readonly name: string;
  readonly documents: number;
  readonly saved: number;
  readonly vectors: number;
  /** Registered sources, each with its refresh state (a source already there is replaced). */
  readonly sources: number;
  /** Question log records the target did not hold yet. */
  readonly logRecords: number;
}

export async function copyNamespaces(
  from: KnowledgeStore,
  to: KnowledgeStore,
  onCopied: (copied: CopiedNamespace) => void,
): Promise<CopiedNamespace[]> {
  const copied: CopiedNamespace[] = [];
  for (const name of await from.namespaceNames()) {
    const source = await from.namespace(name);
    const documents = await copyNamespace(source, await to.namespace(name));
    const result = {
      ...documents,
      sources: await copySources(from.sourceRegistry, to.sourceRegistry, name),
      logRecords: await copyQuestionLog(from.questionLog, to.questionLog, name),
    };
    copied.push(result);
    onCopied(result);
  }
  return copied;
}

async function copyNamespace(source: Namespace, target: Namespace): Promise<Omit<CopiedNamespace, 'sources' | 'logRecords'>> {
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

async function copySources(from: SourceRegistry, to: SourceRegistry, name: NamespaceName): Promise<number> {
  const sources = await from.list(name);
  for (const source of sources) {
    await to.save(source);
    await to.writeState(name, source.id, await from.readState(name, source.id));
  }
  return sources.length;
}

const recordKey = (record: QuestionLogRecord) => `${record.kind} ${record.runId} ${record.at}`;

async function copyQuestionLog(from: QuestionLog, to: QuestionLog, name: NamespaceName): Promise<number> {
  const everything = new Date(0);
  const present = new Set((await to.read(name, everything)).map(recordKey));
  const missing = (await from.read(name, everything)).filter((record) => !present.has(recordKey(record)));
  if (missing.length > 0 && !(await to.append(name, missing))) return 0;
  return missing.length;
}
