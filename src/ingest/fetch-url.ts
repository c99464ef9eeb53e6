// Downloads a URL source: http(s) only, each hop's resolved address checked (and that very address connected to),
// redirects capped, a time-out, and the size cap enforced while streaming.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { KnowledgeError } from '../errors.js';
import { isRefusedAddress } from './address-policy.js';

export interface FetchLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly allowPrivateAddresses: boolean;
  readonly maxRedirects?: number;
  /** The address rule; tests replace it to make one loopback address count as public. */
  readonly isRefusedAddress?: (address: string) => boolean;
}

/** A downloaded page, whether fetched alone or found by a crawl. */
export interface FetchedPage {
  /** The URL after redirects (normalized, when a crawl found it). */
  readonly url: string;
  readonly bytes: Buffer;
  readonly contentType: string | undefined;
}

function guardedLookup(allowPrivateAddresses: boolean, isRefused: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const allowed = addresses.filter((entry) => allowPrivateAddresses || !isRefused(entry.address));
      if (allowed.length === 0) {
        const refusal = Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'ADDRESS_REFUSED' });
        return callback(refusal, '', 4);
      }
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
      const first = allowed[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new KnowledgeError('url_not_allowed', `${JSON.stringify(text)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KnowledgeError('url_not_allowed', `only http and https URLs are fetched, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new KnowledgeError('url_not_allowed', 'URLs with credentials are not fetched');
  }
  return url;
}

/** How to allow what the address policy refused, for docs served on an intranet. */
const allowPrivateHint = '; to ingest from private networks, start the service with KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS=true';

function requestOnce(
  url: URL,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<{ status: number; location?: string; contentType?: string; bytes: Buffer }> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const isRefused = limits.isRefusedAddress ?? isRefusedAddress;
  // Node connects to IP literals without a lookup, so they are checked here.
  if (!limits.allowPrivateAddresses && isIP(hostname) !== 0 && isRefused(hostname)) {
    return Promise.reject(new KnowledgeError('url_not_allowed', `${url.host} is not a public address${allowPrivateHint}`));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.get(
      url,
      {
        lookup: guardedLookup(limits.allowPrivateAddresses, isRefused),
        // A fresh connection per request: a pooled keep-alive socket would skip the guarded lookup.
        agent: false,
        signal,
        headers: {
          'user-agent': 'knowledge-agent/0.1 (+docs ingestion)',
          accept: 'text/html, text/markdown, text/plain, application/pdf;q=0.9, */*;q=0.5',
          'accept-encoding': 'identity',
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location !== undefined) {
          // The redirect's body is not wanted; reading it could go on until the time-out.
          response.destroy();
          resolve({ status, location: response.headers.location, bytes: Buffer.alloc(0) });
          return;
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          response.destroy();
          reject(new KnowledgeError('source_too_large', `${url.href} is ${declared} bytes, over the ${limits.maxBytes}-byte limit`));
          return;
        }
        const parts: Buffer[] = [];
        let received = 0;
        response.on('data', (part: Buffer) => {
          received += part.length;
          if (received > limits.maxBytes) {
            response.destroy();
            reject(new KnowledgeError('source_too_large', `${url.href} is over the ${limits.maxBytes}-byte limit`));
            return;
          }
          parts.push(part);
        });
        response.on('end', () => resolve({ status, contentType: response.headers['content-type'], bytes: Buffer.concat(parts) }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

/**
 * Downloads `text` within the limits. `signal` stops it (the socket is closed at once) and its reason is thrown: the
 * caller's request ended, or the service is shutting down.
 */
export async function fetchUrl(text: string, limits: FetchLimits, signal?: AbortSignal): Promise<FetchedPage> {
  signal?.throwIfAborted();
  let url = parseHttpUrl(text);
  // Linked by hand: Node 20's AbortSignal.any keeps every signal it links to a long-lived one (a request's crawl links
  // a thousand fetches to one).
  const download = new AbortController();
  const timer = setTimeout(() => download.abort(), limits.timeoutMs);
  const stop = () => download.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const maxRedirects = limits.maxRedirects ?? 5;
  try {
    for (let hop = 0; ; hop++) {
      let response: Awaited<ReturnType<typeof requestOnce>>;
      try {
        response = await requestOnce(url, limits, download.signal);
      } catch (error) {
        signal?.throwIfAborted();
        if (error instanceof KnowledgeError) throw error;
        const cause = error as NodeJS.ErrnoException;
        if (cause.code === 'ADDRESS_REFUSED') throw new KnowledgeError('url_not_allowed', `${cause.message}${allowPrivateHint}`);
        if (download.signal.aborted) throw new KnowledgeError('fetch_failed', `${url.href} did not answer within ${limits.timeoutMs} ms`);
        throw new KnowledgeError('fetch_failed', `${url.href} could not be fetched (${cause.code ?? cause.message})`);
      }
      if (response.location !== undefined) {
        if (hop >= maxRedirects) throw new KnowledgeError('fetch_failed', `${text} redirected more than ${maxRedirects} times`);
        url = parseHttpUrl(new URL(response.location, url).href);
        continue;
      }
      if (response.status < 200 || response.status >= 300) {
        throw new KnowledgeError('fetch_failed', `${url.href} answered HTTP ${response.status}`);
      }
      return { url: url.href, bytes: response.bytes, contentType: response.contentType };
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}
