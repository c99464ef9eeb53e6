// Which files of a repository folder a git source ingests: glob patterns over paths relative to the folder, matched in
// linear passes (no regular expressions, so no pattern can make a match take exponential time).
import { KnowledgeError } from '../../errors.js';

/** Markdown, text, HTML and PDF: the formats ingest converts. */
export const defaultDocumentPatterns: readonly string[] = ['**/*.{md,mdx,markdown,txt,html,htm,pdf}'];

/** Enough for any list of extensions; `{a,b}{a,b}…` multiplies, and is refused past it. */
const maxExpansions = 256;

function invalidPattern(pattern: string, reason: string): KnowledgeError {
  return new KnowledgeError('source_invalid', `the file pattern ${JSON.stringify(pattern)} ${reason}`);
}

/** `*.{md,mdx}` → `*.md`, `*.mdx`; braces may nest. */
function expandBraces(pattern: string, whole: string): string[] {
  const open = pattern.indexOf('{');
  if (open === -1) return [pattern];
  const choices: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let index = open; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '{') depth++;
    else if (character === ',' && depth === 1) {
      choices.push(pattern.slice(start, index));
      start = index + 1;
    } else if (character === '}' && --depth === 0) {
      choices.push(pattern.slice(start, index));
      const head = pattern.slice(0, open);
      const tail = pattern.slice(index + 1);
      const expanded: string[] = [];
      for (const choice of choices) {
        expanded.push(...expandBraces(head + choice + tail, whole));
        if (expanded.length > maxExpansions) throw invalidPattern(whole, `stands for more than ${maxExpansions} patterns`);
      }
      return expanded;
    }
  }
  throw invalidPattern(whole, 'has a { without its }');
}

/** `*` any run of characters, `?` one character, within one path segment. */
function matchesSegment(pattern: string, name: string): boolean {
  let patternIndex = 0;
  let nameIndex = 0;
  // Where the last `*` was, and the name position it matched up to: a mismatch retries from there, one character on.
  let starIndex = -1;
  let starName = 0;
  while (nameIndex < name.length) {
    const character = pattern[patternIndex];
    if (character === '*') {
      starIndex = patternIndex++;
      starName = nameIndex;
    } else if (character !== undefined && (character === '?' || character === name[nameIndex])) {
      patternIndex++;
      nameIndex++;
    } else if (starIndex !== -1) {
      patternIndex = starIndex + 1;
      nameIndex = ++starName;
    } else return false;
  }
  while (pattern[patternIndex] === '*') patternIndex++;
  return patternIndex === pattern.length;
}

/** The same walk over segments: `**` stands for any number of folders, itself included none. */
function matchesSegments(pattern: readonly string[], segments: readonly string[]): boolean {
  let patternIndex = 0;
  let segmentIndex = 0;
  let globstarIndex = -1;
  let globstarSegment = 0;
  while (segmentIndex < segments.length) {
    const part = pattern[patternIndex];
    if (part === '**') {
      globstarIndex = patternIndex++;
      globstarSegment = segmentIndex;
    } else if (part !== undefined && matchesSegment(part, segments[segmentIndex] as string)) {
      patternIndex++;
      segmentIndex++;
    } else if (globstarIndex !== -1) {
      patternIndex = globstarIndex + 1;
      segmentIndex = ++globstarSegment;
    } else return false;
  }
  while (pattern[patternIndex] === '**') patternIndex++;
  return patternIndex === pattern.length;
}

/**
 * A test for paths like `guide/intro.md` (relative to the source's folder, `/` between segments) that passes when any
 * pattern matches. Patterns know `**`, `*`, `?` and `{a,b}`; `*` matches dots too, and other characters stand for
 * themselves (no `[...]` classes). Throws source_invalid for an empty, absolute or unbalanced pattern.
 */
export function createPathMatcher(patterns: readonly string[]): (path: string) => boolean {
  if (patterns.length === 0) throw new KnowledgeError('source_invalid', 'a git source needs at least one file pattern, such as **/*.md');
  const compiled = patterns.flatMap((pattern) => {
    if (pattern.trim() === '') throw invalidPattern(pattern, 'is empty');
    if (pattern.startsWith('/')) throw invalidPattern(pattern, 'starts with /: patterns are relative to the folder');
    return expandBraces(pattern, pattern).map((expanded) => expanded.split('/'));
  });
  return (path) => {
    const segments = path.split('/');
    return compiled.some((pattern) => matchesSegments(pattern, segments));
  };
}
