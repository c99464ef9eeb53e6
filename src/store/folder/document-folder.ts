// Reads a namespace folder: its Markdown documents as they are on disk (including files
// added, changed or removed by hand), remembering the files that cannot be read.
import { type Dirent, statSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { backupFilePrefix, temporaryFilePrefix } from '../atomic-write.js';
import { contentHash } from '../content-hash.js';
import { parseDocument, titleFromFileName, titleHeading } from '../front-matter.js';
import { chunkId, type StoredDocument } from '../stored-document.js';

export interface DocumentFolderOptions {
  readonly name: string;
  readonly directory: string;
  /** Chunks a Markdown body (for documents read from their files). */
  readonly chunkBody: (body: string) => readonly { text: string; headingPath: readonly string[] }[];
  readonly warn: (message: string) => void;
}

export class DocumentFolder {
  /** Files that could not be read, with the reason; they are left out of the index. */
  readonly unreadableFiles = new Map<string, string>();

  constructor(private readonly options: DocumentFolderOptions) {}

  /** One human-readable warning per file left out of the index. */
  get warnings(): string[] {
    return [...this.unreadableFiles].map(([file, reason]) => `${file} could not be read and is not searched (${reason})`);
  }

  /** Names of the document files in the folder; leftover temporary files of an interrupted write are removed. */
  async fileNames(): Promise<string[]> {
    const entries = await readdir(this.options.directory, { withFileTypes: true });
    for (const entry of entries)
      if (entry.name.startsWith(temporaryFilePrefix)) await rm(join(this.options.directory, entry.name), { force: true });
    return documentNames(entries);
  }

  /** Names of the document files in the folder, only read: safe while a commit writes. */
  async currentFileNames(): Promise<string[]> {
    return documentNames(await readdir(this.options.directory, { withFileTypes: true }));
  }

  /** Removes backups an interrupted commit left (see backupFilePrefix); only safe while no commit runs. */
  async removeBackups(): Promise<void> {
    for (const name of await readdir(this.options.directory)) {
      if (name.startsWith(backupFilePrefix)) await rm(join(this.options.directory, name), { force: true });
    }
  }

  /**
   * Whether `file` still has the size and modification time recorded for `known`. Synchronous: start-up asks this of
   * every file, and a stat of a cached inode takes microseconds where an asynchronous one waits on the thread pool.
   */
  isUnchanged(file: string, known: StoredDocument): boolean {
    try {
      const { size, mtimeMs } = statSync(join(this.options.directory, file));
      return size === known.fileSize && mtimeMs === known.fileModifiedMs;
    } catch {
      // readDocument reports why.
      return false;
    }
  }

  /** The document in `file`: `known` itself when the file is unchanged, undefined (with a warning) when unreadable. */
  async readDocument(file: string, known: StoredDocument | undefined): Promise<StoredDocument | undefined> {
    try {
      const { size, mtimeMs } = await stat(join(this.options.directory, file));
      if (known !== undefined && known.fileSize === size && known.fileModifiedMs === mtimeMs) return known;
      const document = await this.documentFromFile(file, size, mtimeMs, known);
      this.unreadableFiles.delete(file);
      return document;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      this.unreadableFiles.set(file, reason);
      this.options.warn(`namespace ${this.options.name}: cannot read ${file} (${reason}); it is left out of the index`);
      return undefined;
    }
  }

  private async documentFromFile(
    file: string,
    size: number,
    modifiedMs: number,
    known: StoredDocument | undefined,
  ): Promise<StoredDocument> {
    const { frontMatter, body } = parseDocument(await readFile(join(this.options.directory, file), 'utf8'));
    const hash = contentHash(body);
    if (known !== undefined && known.hash === hash) return { ...known, fileSize: size, fileModifiedMs: modifiedMs };
    return {
      file,
      title: frontMatter.title ?? titleHeading(body) ?? titleFromFileName(file),
      origin: frontMatter.origin ?? file,
      hash,
      ingestedAt: frontMatter.ingestedAt ?? new Date(modifiedMs).toISOString(),
      fileSize: size,
      fileModifiedMs: modifiedMs,
      chunks: this.options.chunkBody(body).map((chunk, ordinal) => ({
        id: chunkId(file, ordinal),
        file,
        headingPath: chunk.headingPath,
        text: chunk.text,
      })),
    };
  }
}

function documentNames(entries: readonly Dirent[]): string[] {
  // Symlinked documents count too; a dangling one is reported as unreadable. Temporary files start with a dot.
  return entries.flatMap((entry) =>
    (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.md') && !entry.name.startsWith('.') ? [entry.name] : [],
  );
}
