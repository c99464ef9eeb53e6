// How the service names a page wherever it names one (an answer's Sources line and citations, its closest-page
// suggestions): one function, so every channel labels the same snippet alike.

/** Link text may not hold an unbalanced bracket, nor a backslash that would escape what follows. */
function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, '\\$&');
}

/** A URL as a Markdown link destination: parentheses and whitespace would end it early. */
function linkDestination(url: string): string {
  return url.replace(/[()\s]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The page's title on one line, linked to its URL when it came from the web (a file or text has no address to link). */
export function pageLabel(page: { readonly title: string; readonly origin: string }): string {
  const title = page.title.replace(/\s+/g, ' ').trim();
  return /^https?:\/\//i.test(page.origin) ? `[${escapeLinkText(title)}](${linkDestination(page.origin)})` : title;
}
