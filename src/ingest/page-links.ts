// The links a crawl can follow: normalized URLs, and the anchors of an HTML page (with its robots meta tag).
import { linkedom } from './html-libraries.js';

// The slice of linkedom's DOM used here; tsconfig loads no DOM library, so its types resolve to any.
interface LinkElement {
  getAttribute(name: string): string | null;
}
interface LinkDocument {
  querySelector(selector: string): LinkElement | null;
  querySelectorAll(selector: string): Iterable<LinkElement>;
}

export interface PageLinks {
  /** Normalized absolute http(s) URLs in document order, each once. */
  readonly links: readonly string[];
  /** False when `<meta name="robots">` says nofollow or none: the page's links are not to be followed. */
  readonly follow: boolean;
  /** False when `<meta name="robots">` says noindex or none: the page is not to be ingested. */
  readonly index: boolean;
}

const trackingParameter = /^(?:utm_.*|gclid|dclid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi)$/i;

// Links to these are never documents; they are not fetched.
const nonDocumentExtensions = new Set(
  (
    'png jpg jpeg gif webp avif svg ico bmp tif tiff heic ' +
    'zip tar gz tgz bz2 xz 7z rar zst jar war whl deb rpm dmg pkg msi exe apk iso img bin ' +
    'css js mjs cjs map json wasm xml rss atom ' +
    'woff woff2 ttf otf eot ' +
    'mp3 mp4 m4a m4v webm ogg ogv wav flac mov avi mkv ' +
    'doc docx xls xlsx ppt pptx odt ods odp epub csv'
  ).split(' '),
);

/**
 * Resolves `href` against `base` and normalizes it for crawling: http(s) only, no credentials, no
 * fragment, tracking parameters (utm_* and the like) dropped; the rest of the query kept byte for
 * byte. Undefined for anything else (mailto:, javascript:, tel:, unparsable).
 */
export function normalizeCrawlUrl(href: string, base?: string | URL): URL | undefined {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  url.hash = '';
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '' && !trackingParameter.test(decodeParameterName(part)));
  url.search = kept.length === 0 ? '' : `?${kept.join('&')}`;
  return url;
}

function decodeParameterName(part: string): string {
  const name = part.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** The extension of the URL's last path segment when it marks a non-document (image, archive, style sheet…). */
export function nonDocumentExtension(url: URL): string | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(url.pathname)?.[1]?.toLowerCase();
  return extension !== undefined && nonDocumentExtensions.has(extension) ? extension : undefined;
}

/** The `<a href>` and `<area href>` links of an HTML page, resolved against `<base href>` or the page URL; rel=nofollow links left out. */
export function readPageLinks(html: string, pageUrl: string): PageLinks {
  const document = linkedom().parseHTML(html).document as LinkDocument;
  const directives = new Set<string>();
  for (const meta of document.querySelectorAll('meta[name][content]')) {
    if (meta.getAttribute('name')?.trim().toLowerCase() !== 'robots') continue;
    for (const directive of (meta.getAttribute('content') ?? '').split(',')) directives.add(directive.trim().toLowerCase());
  }
  const follow = !directives.has('nofollow') && !directives.has('none');
  const index = !directives.has('noindex') && !directives.has('none');
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  const base = (baseHref === null || baseHref === undefined ? undefined : normalizeCrawlUrl(baseHref, pageUrl)) ?? pageUrl;
  const links = new Set<string>();
  if (follow) {
    for (const anchor of document.querySelectorAll('a[href], area[href]')) {
      const rel = (anchor.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
      if (rel.includes('nofollow')) continue;
      const url = normalizeCrawlUrl((anchor.getAttribute('href') ?? '').trim(), base);
      if (url !== undefined) links.add(url.href);
    }
  }
  return { links: [...links], follow, index };
}
