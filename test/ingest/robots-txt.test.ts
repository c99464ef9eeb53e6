// Table-driven tests for the robots.txt parser and matcher: groups, user agents, wildcards, longest match, Crawl-delay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KnowledgeError } from '../../src/errors.js';
import { loadRobotsPolicy, matchesRobotsPattern, parseRobotsTxt, productToken, robotsPolicyFor } from '../../src/ingest/robots-txt.js';

const patternCases: ReadonlyArray<readonly [pattern: string, path: string, matches: boolean]> = [
  ['/', '/', true],
  ['/', '/anything/at/all', true],
  ['/fish', '/fish', true],
  ['/fish', '/fish.html', true],
  ['/fish', '/fish/salmon.html', true],
  ['/fish', '/Fish.asp', false],
  ['/fish', '/catfish', false],
  ['/fish/', '/fish', false],
  ['/fish/', '/fish/?id=anything', true],
  ['/fish*', '/fishheads', true],
  ['/*.php', '/index.php', true],
  ['/*.php', '/folder/filename.php?parameters', true],
  ['/*.php', '/windows.PHP', false],
  ['/*.php$', '/filename.php', true],
  ['/*.php$', '/folder/filename.php', true],
  ['/*.php$', '/filename.php?parameters', false],
  ['/*.php$', '/filename.php5', false],
  ['/fish*.php', '/fishheads/catfish.php?parameters', true],
  ['/fish*.php', '/Fish.PHP', false],
  ['/a*b*c', '/axxbyyc', true],
  ['/a*b*c$', '/axxbyycd', false],
  ['/a*b*c$', '/abcbc', true],
  ['*', '/x', true],
  ['*.pdf$', '/docs/guide.pdf', true],
  ['/a$', '/a', true],
  ['/a$', '/ab', false],
  ['/a$b', '/a$b', true],
  ['/a**b', '/ab', true],
  ['/a?b=', '/a?b=1', true],
];

describe('matchesRobotsPattern', () => {
  for (const [pattern, path, matches] of patternCases) {
    test(`${pattern} ${matches ? 'matches' : 'does not match'} ${path}`, () => {
      assert.equal(matchesRobotsPattern(pattern, path), matches);
    });
  }

  test('a pattern built to make a backtracking matcher explode answers at once', () => {
    const pattern = `/${'*a'.repeat(40)}b`;
    const path = `/${'a'.repeat(20_000)}`;
    const started = performance.now();
    assert.equal(matchesRobotsPattern(pattern, path), false);
    assert.ok(performance.now() - started < 2_000, 'took too long');
  });
});

describe('productToken', () => {
  const cases: ReadonlyArray<readonly [userAgent: string, token: string]> = [
    ['knowledge-agent', 'knowledge-agent'],
    ['Knowledge-Agent/0.1 (+docs ingestion)', 'knowledge-agent'],
    ['  Googlebot-News ', 'googlebot-news'],
    ['Mozilla/5.0', 'mozilla'],
    ['*', ''],
  ];
  for (const [userAgent, token] of cases) {
    test(`${JSON.stringify(userAgent)} → ${JSON.stringify(token)}`, () => assert.equal(productToken(userAgent), token));
  }
});

interface PolicyCase {
  readonly name: string;
  readonly robots: string;
  readonly userAgent?: string;
  readonly allowed: readonly string[];
  readonly disallowed: readonly string[];
}

const policyCases: readonly PolicyCase[] = [
  {
    name: 'the longest matching rule wins',
    robots: 'User-agent: *\nDisallow: /docs/\nAllow: /docs/public/\n',
    allowed: ['/docs/public/', '/docs/public/a.html', '/other', '/docs'],
    disallowed: ['/docs/', '/docs/private/x.html'],
  },
  {
    name: 'a longer Disallow beats a shorter Allow',
    robots: 'User-agent: *\nAllow: /docs/\nDisallow: /docs/drafts/\n',
    allowed: ['/docs/a'],
    disallowed: ['/docs/drafts/a'],
  },
  {
    name: 'Allow wins a tie',
    robots: 'User-agent: *\nDisallow: /page\nAllow: /page\n',
    allowed: ['/page', '/page/x'],
    disallowed: [],
  },
  {
    name: 'an anchored Allow carves the root out of a Disallow of everything',
    robots: 'User-agent: *\nAllow: /$\nDisallow: /\n',
    allowed: ['/'],
    disallowed: ['/a', '/?q=1'],
  },
  {
    name: 'the group naming the crawler beats *',
    robots: 'User-agent: *\nDisallow: /\n\nUser-agent: knowledge-agent\nDisallow: /private/\n',
    allowed: ['/docs/', '/'],
    disallowed: ['/private/a'],
  },
  {
    name: 'another crawler falls back to *',
    robots: 'User-agent: *\nDisallow: /\n\nUser-agent: knowledge-agent\nDisallow: /private/\n',
    userAgent: 'other-bot',
    allowed: [],
    disallowed: ['/docs/', '/'],
  },
  {
    name: 'user agents match case-insensitively, versions ignored',
    robots: 'User-agent: Knowledge-Agent/2.0\nDisallow: /x\n',
    userAgent: 'KNOWLEDGE-AGENT/0.1',
    allowed: ['/y'],
    disallowed: ['/x'],
  },
  {
    name: 'a shorter token is not the crawler',
    robots: 'User-agent: knowledge\nDisallow: /\nUser-agent: *\nDisallow: /star\n',
    allowed: ['/a'],
    disallowed: ['/star'],
  },
  {
    name: 'several user-agent lines share one group',
    robots: 'User-agent: a-bot\nUser-agent: knowledge-agent\nDisallow: /shared\n',
    allowed: ['/other'],
    disallowed: ['/shared/1'],
  },
  {
    name: 'a user-agent line after rules starts a new group',
    robots: 'User-agent: a-bot\nDisallow: /a\nUser-agent: knowledge-agent\nDisallow: /k\n',
    allowed: ['/a'],
    disallowed: ['/k'],
  },
  {
    name: 'groups naming the same crawler are combined',
    robots:
      'User-agent: knowledge-agent\nDisallow: /one\n\nUser-agent: *\nDisallow: /star\n\nUser-agent: knowledge-agent\nDisallow: /two\n',
    allowed: ['/star'],
    disallowed: ['/one', '/two'],
  },
  {
    name: 'a Sitemap line between user-agent lines does not split the group',
    robots: 'User-agent: a-bot\nSitemap: https://example.com/sitemap.xml\nUser-agent: knowledge-agent\nDisallow: /x\n',
    allowed: ['/y'],
    disallowed: ['/x'],
  },
  {
    name: 'no group for the crawler and no * group: everything allowed',
    robots: 'User-agent: other-bot\nDisallow: /\n',
    allowed: ['/', '/a'],
    disallowed: [],
  },
  {
    name: 'an empty Disallow allows everything',
    robots: 'User-agent: *\nDisallow:\n',
    allowed: ['/', '/a'],
    disallowed: [],
  },
  {
    name: 'rules before any user-agent line are ignored',
    robots: 'Disallow: /\nUser-agent: *\nDisallow: /x\n',
    allowed: ['/a'],
    disallowed: ['/x'],
  },
  {
    name: 'comments, CRLF, a BOM, upper-case fields and spaces around the colon',
    robots: '\uFEFF# robots\r\nUSER-AGENT : * # everyone\r\nDISALLOW : /private # keep out\r\n',
    allowed: ['/public'],
    disallowed: ['/private/a'],
  },
  {
    name: 'wildcards over the query string and anchored extensions',
    robots: 'User-agent: *\nDisallow: /*?sort=\nDisallow: /*.pdf$\n',
    allowed: ['/list', '/list?page=2', '/a.pdf?download=1'],
    disallowed: ['/list?sort=asc', '/x/a.pdf'],
  },
  {
    name: 'percent-encoding is compared normalized, in either spelling',
    robots: 'User-agent: *\nDisallow: /caf%c3%a9\nDisallow: /naïve\n',
    allowed: ['/cafe'],
    disallowed: ['/café', '/caf%C3%A9/menu', '/na%C3%AFve'],
  },
  {
    name: 'an empty file allows everything',
    robots: '',
    allowed: ['/'],
    disallowed: [],
  },
];

describe('robotsPolicyFor', () => {
  for (const { name, robots, userAgent, allowed, disallowed } of policyCases) {
    test(name, () => {
      const policy = robotsPolicyFor(parseRobotsTxt(robots), userAgent ?? 'knowledge-agent');
      for (const path of allowed)
        assert.equal(policy.isAllowed(new URL(path, 'https://docs.example.com')), true, `${path} should be allowed`);
      for (const path of disallowed)
        assert.equal(policy.isAllowed(new URL(path, 'https://docs.example.com')), false, `${path} should be disallowed`);
    });
  }
});

describe('Crawl-delay', () => {
  const cases: ReadonlyArray<readonly [robots: string, userAgent: string, seconds: number | undefined]> = [
    ['User-agent: *\nCrawl-delay: 2\n', 'knowledge-agent', 2],
    ['User-agent: *\nCrawl-delay: 0.5\nDisallow: /x\n', 'knowledge-agent', 0.5],
    ['User-agent: *\nCrawl-delay: soon\n', 'knowledge-agent', undefined],
    ['User-agent: *\nCrawl-delay: -1\n', 'knowledge-agent', undefined],
    ['User-agent: *\nCrawl-delay: 5\n\nUser-agent: knowledge-agent\nCrawl-delay: 1\n', 'knowledge-agent', 1],
    ['User-agent: *\nCrawl-delay: 5\n\nUser-agent: knowledge-agent\nDisallow: /x\n', 'knowledge-agent', undefined],
    ['User-agent: other-bot\nCrawl-delay: 5\n', 'knowledge-agent', undefined],
  ];
  for (const [robots, userAgent, seconds] of cases) {
    test(`${JSON.stringify(robots)} → ${String(seconds)}`, () => {
      assert.equal(robotsPolicyFor(parseRobotsTxt(robots), userAgent).crawlDelaySeconds, seconds);
    });
  }
});

describe('loadRobotsPolicy', () => {
  test('fetches <origin>/robots.txt and applies it', async () => {
    const requested: string[] = [];
    const policy = await loadRobotsPolicy('https://docs.example.com', 'knowledge-agent', async (url) => {
      requested.push(url);
      return { bytes: Buffer.from('User-agent: *\nDisallow: /private\n') };
    });
    assert.deepEqual(requested, ['https://docs.example.com/robots.txt']);
    assert.equal(policy.isAllowed(new URL('https://docs.example.com/private/a')), false);
    assert.equal(policy.isAllowed(new URL('https://docs.example.com/public')), true);
  });

  test('a robots.txt that cannot be fetched allows everything', async () => {
    const policy = await loadRobotsPolicy('https://docs.example.com', 'knowledge-agent', async () => {
      throw new KnowledgeError('fetch_failed', 'answered HTTP 404');
    });
    assert.equal(policy.isAllowed(new URL('https://docs.example.com/anything')), true);
    assert.equal(policy.crawlDelaySeconds, undefined);
  });
});
