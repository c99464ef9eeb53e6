// The documents a batch of changes works on: the live index's, with the batch's own changes laid over them. Reads fall
// through to the index, so staging costs O(change) where a copy of the namespace's documents cost O(namespace).
import { FilesByKey } from './files-by-key.js';
import type { IndexOp } from './index-ops.js';
import type { NamespaceIndex } from './namespace-index.js';
import { originIdentity, type StoredDocument } from './stored-document.js';

export class StagedDocuments {
  /** The document the batch put in each file it changed; undefined where it removed one. */
  private readonly changed = new Map<string, StoredDocument | undefined>();
  private readonly changedByHash = new FilesByKey();
  private readonly changedByOrigin = new FilesByKey();

  /** `index` must stay as it is while the batch is staged over it: it changes only once a batch is committed. */
  constructor(private readonly index: NamespaceIndex) {}

  /** The live index with the `put` and `remove` ops of `ops` laid over it. */
  static replaying(index: NamespaceIndex, ops: readonly IndexOp[]): StagedDocuments {
    const staged = new StagedDocuments(index);
    for (const op of ops) {
      if (op.op === 'put') staged.set(op.document);
      else if (op.op === 'remove') staged.delete(op.file);
    }
    return staged;
  }

  get(file: string): StoredDocument | undefined {
    return this.changed.has(file) ? this.changed.get(file) : this.index.document(file);
  }

  has(file: string): boolean {
    return this.get(file) !== undefined;
  }

  set(document: StoredDocument): void {
    this.changed.set(document.file, document);
    this.changedByHash.add(document.hash, document.file);
    this.changedByOrigin.add(originIdentity(document), document.file);
  }

  delete(file: string): void {
    this.changed.set(file, undefined);
  }

  /** Every file name: the live ones the batch kept, then the ones it added. A walk over the whole namespace. */
  *files(): Generator<string> {
    for (const file of this.index.files()) if (this.has(file)) yield file;
    for (const [file, document] of this.changed) if (document !== undefined && this.index.document(file) === undefined) yield file;
  }

  /** The first document holding content of `hash`. */
  withHash(hash: string): StoredDocument | undefined {
    return this.documentsIn(
      [...this.index.filesWithHash(hash), ...this.changedByHash.files(hash)],
      (document) => document.hash === hash,
    )[0];
  }

  /** The first document of origin identity `identity` (see originIdentity). */
  withOrigin(identity: string): StoredDocument | undefined {
    return this.documentsIn(this.filesWithOrigin(identity), (document) => originIdentity(document) === identity)[0];
  }

  /** The documents in `file` or from exactly `origin`; `text`, shared by every pasted text, takes a walk over all. */
  matching(match: { readonly file?: string; readonly origin?: string }): StoredDocument[] {
    const { file, origin } = match;
    const candidates =
      origin === 'text'
        ? this.files()
        : [...(file === undefined ? [] : [file]), ...(origin === undefined ? [] : this.filesWithOrigin(origin))];
    return this.documentsIn(candidates, (document) => document.file === file || document.origin === origin);
  }

  private filesWithOrigin(identity: string): string[] {
    return [...this.index.filesWithOrigin(identity), ...this.changedByOrigin.files(identity)];
  }

  /** The distinct documents in `files` that match, in that order; a file listed under a key may hold another document since. */
  private documentsIn(files: Iterable<string>, matches: (document: StoredDocument) => boolean): StoredDocument[] {
    const found = new Map<string, StoredDocument>();
    for (const file of files) {
      const document = this.get(file);
      if (document !== undefined && !found.has(file) && matches(document)) found.set(file, document);
    }
    return [...found.values()];
  }
}
