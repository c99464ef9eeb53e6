// Downloads a URL source: http(s) only, each hop's resolved address checked (and that very address connected to),
// redirects capped, a time-out, the size cap enforced while streaming, and conditional requests answered 304.
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
  /** The response's ETag header, when it had one: sent back as If-None-Match by fetchIfChanged. */
  readonly etag?: string;
  /** The response's Last-Modified header, when it had one: sent back as If-Modified-Since by fetchIfChanged. */
  readonly lastModified?: string;
}

/** What a page's earlier download said about its version (FetchedPage's headers). */
export interface PageValidators {
  readonly etag?: string;
  readonly lastModified?: string;
}

/** The server answered 304: the page is as it was when its validators were taken. */
export interface NotModified {
  /** The URL after redirects. */
  readonly url: string;
  readonly notModified: true;
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

interface Answer {
  readonly status: number;
  readonly location?: string;
  readonly contentType?: string;
  readonly etag?: string;
  readonly lastModified?: string;
  readonly bytes: Buffer;
}

function requestOnce(url: URL, limits: FetchLimits, conditions: Record<string, string>, signal: AbortSignal): Promise<Answer> {
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
          ...conditions,
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // Neither a redirect's body nor a 304's is wanted; reading it could go on until the time-out.
        if (status >= 300 && status < 400 && response.headers.location !== undefined) {
          response.destroy();
          resolve({ status, location: response.headers.location, bytes: Buffer.alloc(0) });
          return;
        }
        if (status === 304) {
          response.destroy();
          resolve({ status, bytes: Buffer.alloc(0) });
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
        response.on('end', () =>
          resolve({
            status,
            contentType: response.headers['content-type'],
            etag: response.headers.etag,
            lastModified: response.headers['last-modified'],
            bytes: Buffer.concat(parts),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

/**
 * Requests `text` within the limits, following redirects, and returns the final URL and its 2xx answer, or its 304
 * when `conditions` were sent. The conditions go with the first request only: they describe that URL, and a redirect
 * lands on another resource.
 */
async function requestFinal(
  text: string,
  limits: FetchLimits,
  conditions: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<{ url: URL; answer: Answer }> {
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
      const hopConditions = hop === 0 ? conditions : {};
      let answer: Answer;
      try {
        answer = await requestOnce(url, limits, hopConditions, download.signal);
      } catch (error) {
        signal?.throwIfAborted();
        if (error instanceof KnowledgeError) throw error;
        const cause = error as NodeJS.ErrnoException;
        if (cause.code === 'ADDRESS_REFUSED') throw new KnowledgeError('url_not_allowed', `${cause.message}${allowPrivateHint}`);
        if (download.signal.aborted) throw new KnowledgeError('fetch_failed', `${url.href} did not answer within ${limits.timeoutMs} ms`);
        throw new KnowledgeError('fetch_failed', `${url.href} could not be fetched (${cause.code ?? cause.message})`);
      }
      if (answer.location !== undefined) {
        if (hop >= maxRedirects) throw new KnowledgeError('fetch_failed', `${text} redirected more than ${maxRedirects} times`);
        url = parseHttpUrl(new URL(answer.location, url).href);
        continue;
      }
      const notModified = answer.status === 304 && Object.keys(hopConditions).length > 0;
      if (!notModified && (answer.status < 200 || answer.status >= 300)) {
        throw new KnowledgeError('fetch_failed', `${url.href} answered HTTP ${answer.status}`, { upstreamStatus: answer.status });
      }
      return { url, answer };
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}

function pageOf(url: URL, answer: Answer): FetchedPage {
  return {
    url: url.href,
    bytes: answer.bytes,
    contentType: answer.contentType,
    ...(answer.etag === undefined ? {} : { etag: answer.etag }),
    ...(answer.lastModified === undefined ? {} : { lastModified: answer.lastModified }),
  };
}

/**
 * Downloads `text` within the limits. `signal` stops it (the socket is closed at once) and its reason is thrown: the
 * caller's request ended, or the service is shutting down. A non-2xx answer is `fetch_failed` with its upstreamStatus.
 */
export async function fetchUrl(text: string, limits: FetchLimits, signal?: AbortSignal): Promise<FetchedPage> {
  const { url, answer } = await requestFinal(text, limits, {}, signal);
  return pageOf(url, answer);
}

/**
 * Downloads `text` as fetchUrl does, unless it has not changed since the page the validators came from: then the
 * server's 304 resolves to NotModified, no body read. Validators are sent with the first request only.
 */
export async function fetchIfChanged(
  text: string,
  limits: FetchLimits,
  validators: PageValidators,
  signal?: AbortSignal,
): Promise<FetchedPage | NotModified> {
  const conditions: Record<string, string> = {};
  if (validators.etag !== undefined) conditions['if-none-match'] = validators.etag;
  if (validators.lastModified !== undefined) conditions['if-modified-since'] = validators.lastModified;
  const { url, answer } = await requestFinal(text, limits, conditions, signal);
  return answer.status === 304 ? { url: url.href, notModified: true } : pageOf(url, answer);
}
