// File names for stored documents: readable slugs of titles (prefixed by the folders of an uploaded path), unique within a namespace.

const maxSlugLength = 80;
/** Room for the folders in front of the title's slug. */
const maxFolderSlugLength = 60;

function toSlug(text: string, maxLength: number): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
}

export function slugify(title: string): string {
  const slug = toSlug(title, maxSlugLength);
  return slug === '' ? 'document' : slug;
}

/**
 * The file stem of a document: the title's slug, behind the slug of its folders when it came with any
 * (`tutorial/security` + "First Steps" gives `tutorial-security-first-steps`). Words the title repeats from the end
 * of the folders are written once (`advanced` + "Advanced Middleware" gives `advanced-middleware`), so that pages
 * named after their folder stay short.
 */
export function documentSlug(title: string, folder: string | undefined): string {
  const titleSlug = slugify(title);
  const folderSlug = folder === undefined ? '' : toSlug(folder, maxFolderSlugLength);
  if (folderSlug === '') return titleSlug;
  const folderWords = folderSlug.split('-');
  const titleWords = titleSlug.split('-');
  let overlap = Math.min(folderWords.length, titleWords.length);
  while (overlap > 0 && folderWords.slice(-overlap).join('-') !== titleWords.slice(0, overlap).join('-')) overlap--;
  return [...folderWords, ...titleWords.slice(overlap)].join('-');
}

/** `<slug>.md`, or `<slug>-2.md`, `<slug>-3.md`… when taken. */
export function uniqueFileName(slug: string, isTaken: (file: string) => boolean): string {
  let file = `${slug}.md`;
  for (let counter = 2; isTaken(file); counter++) file = `${slug}-${counter}.md`;
  return file;
}
