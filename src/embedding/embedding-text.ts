// The text embedded for a chunk: its document title and heading path give the chunk context it lacks on its own.

export function embeddingText(title: string, headingPath: readonly string[], text: string): string {
  const context = [title, ...headingPath.filter((heading) => heading !== title)].join(' > ');
  return `${context}\n\n${text}`;
}
