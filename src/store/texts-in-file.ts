// Chunks' texts read from a snapshot's file on demand instead of held in memory: at a million chunks that keeps their
// 0.7 GB out of the resident set, while building and while serving (docs/performance.md). A search reads the texts of
// the few dozen chunks it shows; a compaction reads each document's texts in one read (see EncodedTextChunk).
import { closeSync, fstatSync, openSync } from 'node:fs';
import { readWhole } from '../indexes/unit-rows.js';

/**
 * Closes a file once nothing reads from it any more, unless it was closed before (see close). A compaction cannot close
 * the file it replaces: a chunk of a document removed meanwhile may still be read from it (held by a search under way).
 */
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd));

export class TextsInFile {
  private closed = false;

  private constructor(private readonly fd: number) {
    descriptors.register(this, fd, this);
  }

  /** The file at `path`, opened for reading. */
  static open(path: string): TextsInFile {
    return new TextsInFile(openSync(path, 'r'));
  }

  /** The file at `path`, opened for reading when it is still the file of inode `ino` (not replaced meanwhile). */
  static openIfSame(path: string, ino: number): TextsInFile | undefined {
    const fd = openSync(path, 'r');
    if (fstatSync(fd).ino === ino) return new TextsInFile(fd);
    closeSync(fd);
    return undefined;
  }

  /** The `length` bytes at `start`. */
  read(start: number, length: number): Buffer {
    if (this.closed) throw new Error("the namespace's texts were read after it was closed");
    const bytes = Buffer.allocUnsafe(length);
    if (!readWhole(this.fd, start, bytes)) throw new Error(`the snapshot's file ends before the text at byte ${start}`);
    return bytes;
  }

  /** Closes the file now (a namespace closed, so that nothing keeps its files open): reading it throws after this. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    descriptors.unregister(this);
    closeSync(this.fd);
  }
}
