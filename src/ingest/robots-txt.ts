// Parses robots.txt (RFC 9309 plus the common Crawl-delay) and answers whether a crawler may fetch a URL.

export interface RobotsRule {
  readonly allow: boolean;
  /** The path pattern, percent-encoding normalized; `*` matches any run of characters, a final `$` ends the URL. */
  readonly pattern: string;
}

export interface RobotsGroup {
  /** Product tokens in lower case, or `*`. */
  readonly userAgents: readonly string[];
  readonly rules: readonly RobotsRule[];
  readonly crawlDelaySeconds: number | undefined;
}

export interface RobotsTxt {
  readonly groups: readonly RobotsGroup[];
}

export interface RobotsPolicy {
  isAllowed(url: URL): boolean;
  /** Seconds to leave between requests, when the matching group asks for it. */
  readonly crawlDelaySeconds: number | undefined;
}

// RFC 9309 asks parsers to read at least 500 KiB; anything past this is ignored.
const maxRobotsLength = 512 * 1024;

export const allowEverything: RobotsPolicy = { isAllowed: () => true, crawlDelaySeconds: undefined };

/** The product token of a user-agent string: `Knowledge-Agent/0.1 (+docs)` → `knowledge-agent`. */
export function productToken(userAgent: string): string {
  return (/^[A-Za-z0-9_-]+/.exec(userAgent.trim())?.[0] ?? '').toLowerCase();
}

/** Upper-cases percent escapes and percent-encodes what a URL path cannot hold as is (spaces, non-ASCII). */
function normalizePercentEncoding(text: string): string {
  let result = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    result += code <= 0x20 || code >= 0x7f ? encodeURIComponent(character) : character;
  }
  return result.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

interface GroupDraft {
  userAgents: string[];
  rules: RobotsRule[];
  crawlDelaySeconds: number | undefined;
  /** A group takes no more user-agent lines once a rule has been read. */
  closed: boolean;
}

export function parseRobotsTxt(text: string): RobotsTxt {
  const groups: GroupDraft[] = [];
  let current: GroupDraft | undefined;
  for (const rawLine of text
    .slice(0, maxRobotsLength)
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (current === undefined || current.closed) {
        current = { userAgents: [], rules: [], crawlDelaySeconds: undefined, closed: false };
        groups.push(current);
      }
      const token = value === '*' ? '*' : productToken(value);
      if (token !== '') current.userAgents.push(token);
    } else if (field === 'allow' || field === 'disallow') {
      if (current === undefined) continue;
      current.closed = true;
      // An empty Disallow allows everything, which is the default anyway.
      if (value !== '') current.rules.push({ allow: field === 'allow', pattern: normalizePercentEncoding(value) });
    } else if (field === 'crawl-delay') {
      if (current === undefined) continue;
      current.closed = true;
      const seconds = Number(value);
      if (value !== '' && Number.isFinite(seconds) && seconds >= 0) current.crawlDelaySeconds ??= seconds;
    }
  }
  return { groups: groups.map(({ userAgents, rules, crawlDelaySeconds }) => ({ userAgents, rules, crawlDelaySeconds })) };
}

/**
 * Whether `pattern` matches `path` from its start. Iterative with one back-track point per `*`,
 * so a hostile pattern costs at most pattern length × path length steps, never exponential time.
 */
export function matchesRobotsPattern(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  let patternIndex = 0;
  let pathIndex = 0;
  let starIndex = -1;
  let starPathIndex = 0;
  for (;;) {
    if (patternIndex === body.length) {
      if (!anchored || pathIndex === path.length) return true;
    } else if (body[patternIndex] === '*') {
      starIndex = patternIndex++;
      starPathIndex = pathIndex;
      continue;
    } else if (pathIndex < path.length && body[patternIndex] === path[pathIndex]) {
      patternIndex++;
      pathIndex++;
      continue;
    }
    if (starIndex < 0 || starPathIndex >= path.length) return false;
    pathIndex = ++starPathIndex;
    patternIndex = starIndex + 1;
  }
}

/** The policy for one crawler: the groups naming its product token, else the `*` groups, else no rules. */
export function robotsPolicyFor(robots: RobotsTxt, userAgent: string): RobotsPolicy {
  const token = productToken(userAgent);
  const named = robots.groups.filter((group) => token !== '' && group.userAgents.includes(token));
  const groups = named.length > 0 ? named : robots.groups.filter((group) => group.userAgents.includes('*'));
  const rules = groups.flatMap((group) => group.rules);
  const crawlDelaySeconds = groups.find((group) => group.crawlDelaySeconds !== undefined)?.crawlDelaySeconds;
  return {
    crawlDelaySeconds,
    isAllowed(url) {
      const path = normalizePercentEncoding(url.pathname + url.search);
      let best: RobotsRule | undefined;
      for (const rule of rules) {
        if (!matchesRobotsPattern(rule.pattern, path)) continue;
        // The longest pattern wins; on a tie Allow wins.
        if (best === undefined || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow))
          best = rule;
      }
      return best?.allow ?? true;
    },
  };
}

/**
 * Fetches `<origin>/robots.txt` with the crawler's own fetcher. A robots.txt that cannot be fetched
 * (404, any other error status, network failure) allows everything.
 */
export async function loadRobotsPolicy(
  origin: string,
  userAgent: string,
  fetchText: (url: string) => Promise<{ bytes: Buffer }>,
): Promise<RobotsPolicy> {
  try {
    const { bytes } = await fetchText(new URL('/robots.txt', origin).href);
    return robotsPolicyFor(parseRobotsTxt(bytes.subarray(0, maxRobotsLength).toString('utf8')), userAgent);
  } catch {
    return allowEverything;
  }
}
