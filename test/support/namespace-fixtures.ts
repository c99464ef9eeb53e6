// Namespaces in temporary folders for the store's tests: documents with deterministic vectors, and what a reader can
// observe of an index (documents, chunk texts, vectors, lexical ranking) to compare two of them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkMarkdown } from '../../src/ingest/chunk-markdown.js';
import { contentHash } from '../../src/store/content-hash.js';
import { FolderStorage, type FolderStorageOptions } from '../../src/store/folder/folder-storage.js';
import type { EmbeddingInfo } from '../../src/store/index-ops.js';
import type { NamespaceIndex } from '../../src/store/namespace-index.js';
import type { StorageBatch } from '../../src/store/namespace-storage.js';
import { Namespace } from '../../src/store/namespace.js';
import { sanitizeNamespace } from '../../src/store/namespace-name.js';
import type { DocumentDraft, StoredDocument } from '../../src/store/stored-document.js';
import { markerDocument, seededRandom } from './durability-documents.js';

export const testModel = 'test-model';
export const dimensions = 8;

const directories: string[] = [];

/** A new empty folder, removed by removeTemporaryDirectories. */
export async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'knowledge-agent-index-'));
  directories.push(directory);
  return directory;
}

export async function removeTemporaryDirectories(): Promise<void> {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
}

/** A unit vector determined by the text. */
export function vectorFor(text: string): Float32Array {
  const random = seededRandom(text.length * 7919 + text.charCodeAt(0));
  const vector = Float32Array.from({ length: dimensions }, () => random() - 0.5);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

/** A document of `sections` chunks mentioning `marker`, embedded by the test model unless `embedded` is false. */
export function draft(marker: string, sections: number, embedded = true): DocumentDraft {
  const body = markerDocument(marker, sections);
  return {
    title: `Runbook ${marker}`,
    origin: `text-${marker}`,
    body,
    hash: contentHash(body),
    embeddingModel: embedded ? testModel : null,
    chunks: chunkMarkdown(body).map((chunk) => ({ ...chunk, embedding: embedded ? vectorFor(chunk.text) : null })),
  };
}

/** The options the service's folder layout opens the namespace `test` in `directory` with. */
function storageOptions(directory: string, warn: (message: string) => void, embeddingModel = testModel): FolderStorageOptions {
  return { name: 'test', directory, embeddingModel, chunkBody: (body) => chunkMarkdown(body), warn };
}

/** The namespace `test` kept in `directory`, over the folder storage the service's folder layout opens it with. */
export function openNamespace(directory: string, warnings: string[] = [], embeddingModel = testModel): Promise<Namespace> {
  const warn = (message: string) => warnings.push(message);
  return Namespace.over(sanitizeNamespace('test'), new FolderStorage(storageOptions(directory, warn, embeddingModel)), warn);
}

/** What a test does inside a folder storage's batches: fail a write or a commit, or act in the middle of one. */
export interface BatchHooks {
  beforeCreate?(content: string): void;
  afterCreate?(): Promise<void>;
  beforeCommit?(): void;
}

/** The folder storage the service uses, with `hooks` run inside its batches. */
export class HookedFolderStorage extends FolderStorage {
  hooks: BatchHooks = {};

  override async beginBatch(index: NamespaceIndex): Promise<StorageBatch> {
    const batch = await super.beginBatch(index);
    return {
      createDocument: async (slug, content, taken) => {
        this.hooks.beforeCreate?.(content);
        const written = await batch.createDocument(slug, content, taken);
        await this.hooks.afterCreate?.();
        return written;
      },
      replaceDocument: (file, content) => batch.replaceDocument(file, content),
      removeDocument: (file) => batch.removeDocument(file),
      mark: () => batch.mark(),
      undo: (since) => batch.undo(since),
      commit: async (ops, live) => {
        this.hooks.beforeCommit?.();
        await batch.commit(ops, live);
      },
      abort: () => batch.abort(),
    };
  }
}

/** The namespace `test` in a new temporary folder, over a HookedFolderStorage. */
export async function hookedNamespace(): Promise<{ namespace: Namespace; storage: HookedFolderStorage }> {
  const storage = new HookedFolderStorage(storageOptions(await temporaryDirectory(), () => undefined));
  return { namespace: await Namespace.over(sanitizeNamespace('test'), storage, () => undefined), storage };
}

export interface IndexView {
  readonly documents: readonly StoredDocument[];
  readonly embedding: EmbeddingInfo | null;
  vectorOf(id: string): Float32Array | undefined;
  searchLexical(query: string, limit: number): { key: string; score: number }[];
}

/** What a reader can observe of a namespace index: documents, chunk texts, vectors and lexical ranking. */
export function observable(index: IndexView, queries: readonly string[]) {
  const documents = [...index.documents].sort((left, right) => left.file.localeCompare(right.file));
  return {
    embedding: index.embedding,
    documents: documents.map((document) => ({
      ...document,
      chunks: document.chunks.map(({ id, file, headingPath, text }) => ({
        id,
        file,
        headingPath,
        text,
        vector: index.vectorOf(id) && [...(index.vectorOf(id) as Float32Array)].map((value) => value.toFixed(5)),
      })),
    })),
    rankings: queries.map((query) => index.searchLexical(query, 5).map((hit) => `${hit.key} ${hit.score.toFixed(9)}`)),
  };
}

export function namespaceView(namespace: Namespace): IndexView {
  return {
    documents: namespace.documents,
    vectorOf: (id: string) => namespace.vectorOf(id),
    searchLexical: (query: string, limit: number) => namespace.searchLexical(query, limit),
    embedding: namespace.embeddingModel === null ? null : { model: namespace.embeddingModel, dimensions },
  };
}
