// The address policy of URL ingest, for git: which repository URLs may be fetched, and the git settings that hold git
// to the address checked here (it resolves no name itself, follows no redirect and speaks no other protocol).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { KnowledgeError } from '../../errors.js';
import { isRefusedAddress } from '../../ingest/address-policy.js';

export interface RemotePolicy {
  readonly allowPrivateAddresses: boolean;
  /** The address rule; tests replace it to make one loopback address count as public. */
  readonly isRefusedAddress?: (address: string) => boolean;
  /** Resolves a host name to its addresses; tests replace it to reach a made-up name on loopback. */
  readonly resolveHost?: (hostname: string) => Promise<string[]>;
}

/** A repository URL that passed the policy, and the `-c` options that pin git to the address it was checked at. */
export interface CheckedRemote {
  readonly url: string;
  readonly gitOptions: readonly string[];
}

const allowPrivateHint = '; to fetch from private networks, start the service with KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS=true';

async function resolveAll(hostname: string): Promise<string[]> {
  return (await lookup(hostname, { all: true })).map((entry) => entry.address);
}

function parseRepositoryUrl(text: string, policy: RemotePolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new KnowledgeError('url_not_allowed', `${JSON.stringify(text)} is not a valid repository URL`);
  }
  // Plain http only reaches loopback test servers and intranets: anyone on the way could change what is fetched.
  const protocols = policy.allowPrivateAddresses ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) {
    throw new KnowledgeError('url_not_allowed', `git repositories are fetched over https only, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new KnowledgeError('url_not_allowed', 'repository URLs with credentials are not fetched: only public repositories are');
  }
  return url;
}

/** Checks `text` against the policy and resolves its host once; git then connects to that very address. */
export async function checkRemote(text: string, policy: RemotePolicy): Promise<CheckedRemote> {
  const url = parseRepositoryUrl(text, policy);
  const isRefused = policy.isRefusedAddress ?? isRefusedAddress;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = (address: string) => policy.allowPrivateAddresses || !isRefused(address);
  const protocolOptions = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always'];
  if (policy.allowPrivateAddresses) protocolOptions.push('-c', 'protocol.http.allow=always');
  const gitOptions = [...protocolOptions, '-c', 'http.followRedirects=false', '-c', 'credential.helper=', '-c', 'core.askPass='];
  if (isIP(hostname) !== 0) {
    if (!allowed(hostname)) throw new KnowledgeError('url_not_allowed', `${url.host} is not a public address${allowPrivateHint}`);
    return { url: url.href, gitOptions };
  }
  let addresses: string[];
  try {
    addresses = await (policy.resolveHost ?? resolveAll)(hostname);
  } catch (error) {
    throw new KnowledgeError(
      'fetch_failed',
      `${hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'no address'})`,
      {
        cause: error,
        temporary: true,
      },
    );
  }
  const address = addresses.find(allowed);
  if (address === undefined) throw new KnowledgeError('url_not_allowed', `${hostname} resolves to a non-public address${allowPrivateHint}`);
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  // curl's form: HOST:PORT:ADDRESS, an IPv6 address in brackets.
  const pinned = isIP(address) === 6 ? `[${address}]` : address;
  return { url: url.href, gitOptions: [...gitOptions, '-c', `http.curloptResolve=${hostname}:${port}:${pinned}`] };
}
