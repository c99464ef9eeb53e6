// File names for stored documents: readable slugs of titles, unique within a namespace.

const maxSlugLength = 80;

export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxSlugLength)
    .replace(/-+$/, '');
  return slug === '' ? 'document' : slug;
}

/** `<slug>.md`, or `<slug>-2.md`, `<slug>-3.md`… when taken. */
export function uniqueFileName(title: string, isTaken: (file: string) => boolean): string {
  const slug = slugify(title);
  let file = `${slug}.md`;
  for (let counter = 2; isTaken(file); counter++) file = `${slug}-${counter}.md`;
  return file;
}
