// Files as the user picked or dropped them, each with its path relative to what was chosen: a dropped or chosen
// folder keeps its inner folders (`tutorial/middleware.md`), because the service tells documents apart by that path.

/** A file to upload and the name it is uploaded under (the document's identity at the service). */
export interface PickedFile {
  readonly file: File;
  readonly path: string;
}

/** What a folder brought: its documents, and how many other files were left out. */
export interface PickedFiles {
  readonly files: PickedFile[];
  readonly leftOut: number;
}

/** The extensions the service converts; a folder's other files (images, code) are left out. */
const documentExtensions = ['.md', '.markdown', '.mdx', '.txt', '.text', '.pdf', '.html', '.htm'];

function isDocumentName(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && documentExtensions.includes(name.slice(dot).toLowerCase());
}

/** Hidden files and folders (.git, .DS_Store) and node_modules are never documentation. */
function isHiddenPath(segments: readonly string[]): boolean {
  return segments.some((segment) => segment.startsWith('.') || segment === 'node_modules');
}

/**
 * A file found in a folder the user chose, by its path from that folder's parent (`docs/tutorial/index.md`, as
 * webkitRelativePath and entry paths give it): the chosen folder's own name is dropped, so the path is relative to
 * the folder, as `knowledge-agent ingest docs/` sends it. Undefined for a file left out.
 */
function fromFolder(file: File, pathFromParent: string): PickedFile | undefined {
  const segments = pathFromParent.split('/').filter((segment) => segment !== '');
  const inner = segments.slice(1);
  if (inner.length === 0 || isHiddenPath(inner) || !isDocumentName(file.name)) return undefined;
  return { file, path: inner.join('/') };
}

/** Files from a file input: a folder input (webkitdirectory) gives each its webkitRelativePath. */
export function pickedFromInput(files: readonly File[]): PickedFiles {
  const picked: PickedFile[] = [];
  let leftOut = 0;
  for (const file of files) {
    if (file.webkitRelativePath === '') {
      picked.push({ file, path: file.name });
      continue;
    }
    const inFolder = fromFolder(file, file.webkitRelativePath);
    if (inFolder === undefined) leftOut++;
    else picked.push(inFolder);
  }
  return { files: picked, leftOut };
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every file under a dropped folder, with its entry path (`/docs/tutorial/index.md`). */
async function walkEntry(entry: FileSystemEntry, found: { file: File; path: string }[]): Promise<void> {
  if (entry.isFile) {
    found.push({ file: await entryFile(entry as FileSystemFileEntry), path: entry.fullPath });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in pages (100 entries at a time in Chromium) until it answers none.
  for (let page = await readEntries(reader); page.length > 0; page = await readEntries(reader)) {
    for (const child of page) await walkEntry(child, found);
  }
}

/**
 * The files of a drop: dropped files by their names, dropped folders walked. The entries are taken while the drop
 * event runs (the browser empties its DataTransfer afterwards); their files are read after.
 */
export function pickedFromDrop(transfer: DataTransfer): Promise<PickedFiles> {
  const dropped = [...transfer.items].flatMap((item) =>
    item.kind === 'file' ? [{ entry: item.webkitGetAsEntry(), file: item.getAsFile() }] : [],
  );
  return (async () => {
    const picked: PickedFile[] = [];
    let leftOut = 0;
    for (const { entry, file } of dropped) {
      // A dropped file keeps its name; without the entries API (or for a plain file) there are no folders to walk.
      if (entry === null || entry.isFile) {
        if (file !== null) picked.push({ file, path: file.name });
        continue;
      }
      const found: { file: File; path: string }[] = [];
      await walkEntry(entry, found);
      for (const { file, path } of found) {
        const inFolder = fromFolder(file, path);
        if (inFolder === undefined) leftOut++;
        else picked.push(inFolder);
      }
    }
    return { files: picked, leftOut };
  })();
}
