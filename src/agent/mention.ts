// The mention gate: the agent answers only when invoked by its mention (e.g. "@knowledge"), matched case-insensitively.

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches the mention as a whole word: "@knowledge," counts, "@knowledgebase" does not. */
function mentionPattern(mention: string): RegExp {
  return new RegExp(`${escapeRegExp(mention)}(?![\\p{L}\\p{N}_-])`, 'giu');
}

export function containsMention(text: string, mention: string): boolean {
  return mentionPattern(mention).test(text);
}

/** The text without the mention, for use as a search query. */
export function removeMention(text: string, mention: string): string {
  return text
    .replace(mentionPattern(mention), ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[,:;]\s*/, '');
}
