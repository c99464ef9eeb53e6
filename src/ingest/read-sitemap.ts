// Reads a sitemap or sitemap index: each entry's location and, when it gives a valid one, its last modification.

export interface SitemapEntry {
  /** The `<loc>` value as written, entities decoded. */
  readonly loc: string;
  /** The entry's `<lastmod>` as an ISO 8601 UTC string, when it is a valid W3C date or date-time. */
  readonly lastmod?: string;
}

export interface Sitemap {
  readonly kind: 'urlset' | 'sitemapindex';
  /** The `<url>` entries of a urlset, the `<sitemap>` entries of an index, in document order. */
  readonly entries: readonly SitemapEntry[];
}

const xmlEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return xmlEntities[name.toLowerCase()] ?? entity;
  });
}

// The W3C profile of ISO 8601 sitemaps use: YYYY, YYYY-MM, YYYY-MM-DD, or a date with hh:mm[:ss[.s]] and a time zone.
const w3cDatetime = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/;

/** A W3C time zone designator (`Z`, `+hh:mm`, `-hh:mm`) in minutes east of UTC; undefined when out of range. */
function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

/** `text` as an ISO 8601 UTC string when it is a W3C date or date-time naming a real moment; undefined otherwise. */
function normalizeLastmod(text: string): string | undefined {
  const match = w3cDatetime.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((group) => Number(match[group] ?? (group <= 3 ? 1 : 0)));
  const milliseconds = Math.floor(Number(match[7] ?? 0) * 1000);
  const offsetMinutes = zoneOffsetMinutes(match[8]);
  if (offsetMinutes === undefined) return undefined;
  const asWritten = new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute, second, milliseconds));
  // Date.UTC rolls 2024-02-30 over into March and 24:00 into the next day: fields that change did not name a moment.
  const written = [year, month, day, hour, minute, second];
  const read = [
    asWritten.getUTCFullYear(),
    asWritten.getUTCMonth() + 1,
    asWritten.getUTCDate(),
    asWritten.getUTCHours(),
    asWritten.getUTCMinutes(),
    asWritten.getUTCSeconds(),
  ];
  if (read.some((field, index) => field !== written[index])) return undefined;
  return new Date(asWritten.getTime() - offsetMinutes * 60_000).toISOString();
}

/**
 * Reads a sitemap (`<urlset>`) or sitemap index (`<sitemapindex>`); undefined when the text is neither.
 * Only elements in the root's own namespace prefix count, so `<image:loc>` and the like are left out. An entry starts at
 * its `<url>` or `<sitemap>` tag (or at a second `<loc>`, for sitemaps that leave the tag out) and has a location.
 * The patterns never scan past a `<`, so hostile input cannot make them quadratic.
 */
export function readSitemap(text: string): Sitemap | undefined {
  let rest = text.replace(/^\uFEFF/, '');
  // Skip the prolog: XML declaration, processing instructions, comments, a doctype.
  for (let step = 0; step < 64; step++) {
    rest = rest.trimStart();
    const prolog = /^(?:<\?[^>]*>|<!--(?:[^-]|-(?!->))*-->|<!DOCTYPE[^>]*>)/i.exec(rest);
    if (prolog === null) break;
    rest = rest.slice(prolog[0].length);
  }
  const root = /^<(?:([A-Za-z_][\w.-]*):)?(urlset|sitemapindex)[\s/>]/i.exec(rest);
  if (root === null) return undefined;
  const prefix = root[1] === undefined ? '' : `${root[1]}:`;
  const kind = (root[2] ?? '').toLowerCase() === 'urlset' ? 'urlset' : 'sitemapindex';
  const escapedPrefix = prefix.replace(/[.\\]/g, '\\$&');
  // Group 1: an entry's opening tag; group 2: loc or lastmod, its value in CDATA (3) or as text (4).
  const element = new RegExp(
    `<(?:${escapedPrefix}(${kind === 'urlset' ? 'url' : 'sitemap'})[\\s>]|${escapedPrefix}(loc|lastmod)>(?:\\s*<!\\[CDATA\\[([^\\]<]*)\\]\\]>\\s*|([^<]*))</${escapedPrefix}\\2\\s*>)`,
    'gi',
  );
  const entries: SitemapEntry[] = [];
  let current: { loc?: string; lastmod?: string } = {};
  const finishEntry = (): void => {
    if (current.loc !== undefined)
      entries.push(current.lastmod === undefined ? { loc: current.loc } : { loc: current.loc, lastmod: current.lastmod });
    current = {};
  };
  for (const match of text.matchAll(element)) {
    if (match[1] !== undefined) {
      finishEntry();
      continue;
    }
    const value = (match[3] ?? decodeXmlText(match[4] ?? '')).trim();
    if (match[2]?.toLowerCase() === 'loc') {
      if (value === '') continue;
      if (current.loc !== undefined) finishEntry();
      current.loc = value;
    } else {
      current.lastmod ??= normalizeLastmod(value);
    }
  }
  finishEntry();
  return { kind, entries };
}
