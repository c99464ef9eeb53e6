// File names by a key their documents share (a content hash, an origin), so a commit finds a document without
// scanning the namespace. Usually one file per key; more when the same content was placed in several files by hand.

export class FilesByKey {
  private readonly filesOf = new Map<string, string[]>();

  /** The files under `key`, oldest first. */
  files(key: string): readonly string[] {
    return this.filesOf.get(key) ?? [];
  }

  add(key: string, file: string): void {
    const files = this.filesOf.get(key);
    if (files === undefined) this.filesOf.set(key, [file]);
    else if (!files.includes(file)) files.push(file);
  }

  remove(key: string, file: string): void {
    const files = this.filesOf.get(key)?.filter((other) => other !== file) ?? [];
    if (files.length === 0) this.filesOf.delete(key);
    else this.filesOf.set(key, files);
  }
}
