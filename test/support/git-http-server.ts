// A git repository served over smart HTTP on loopback for git-source tests: a work repository in a temporary folder,
// commits made by the test, and `git http-backend` run as a CGI program per request.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface GitHttpServer {
  /** The repository's URL: `http://127.0.0.1:<port>/repo.git`. */
  readonly url: string;
  readonly port: number;
  /** Request paths (with query), in order. */
  readonly requests: string[];
  /**
   * Writes (string) or deletes (null) files in the work tree, commits them all on `main` and answers the commit id.
   */
  commit(message: string, files: Record<string, string | Buffer | null>): string;
  /** The blob id of a file at the latest commit. */
  blobOf(path: string): string;
  /** Answers requests itself while set: return true when it did. */
  intercept: ((request: IncomingMessage, response: ServerResponse) => boolean) | undefined;
  close(): Promise<void>;
}

/** A fixed author and no user configuration, so commits do not depend on the machine. */
const gitEnvironment = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  LC_ALL: 'C',
};

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnvironment, encoding: 'utf8' }).trim();
}

function gitExecPath(): string {
  try {
    return execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim();
  } catch (error) {
    throw new Error('the git-source tests need the git binary (2.x) on PATH', { cause: error });
  }
}

/** Runs http-backend for one request and copies its CGI answer (headers with `Status:`, then the body) to `response`. */
function serveWithBackend(backend: string, root: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const header = (name: string) => request.headers[name]?.toString() ?? '';
  const child = spawn(backend, [], {
    env: {
      ...gitEnvironment,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method ?? 'GET',
      CONTENT_TYPE: header('content-type'),
      CONTENT_LENGTH: header('content-length'),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      HTTP_GIT_PROTOCOL: header('git-protocol'),
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (part: Buffer) => {
    if (headersSent) return void response.write(part);
    head = Buffer.concat([head, part]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    headersSent = true;
    response.write(head.subarray(end + 4));
  });
  child.on('close', () => response.end());
  child.on('error', () => response.destroy());
}

/** Starts a server with an empty repository (branch `main`, no commit yet). Throws when git is missing. */
export async function startGitHttpServer(): Promise<GitHttpServer> {
  const backend = join(gitExecPath(), 'git-http-backend');
  const root = mkdtempSync(join(tmpdir(), 'git-source-'));
  const work = join(root, 'repo.git');
  mkdirSync(work);
  git(work, ['init', '--quiet', '--initial-branch=main']);
  const requests: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((request, response) => {
    requests.push(request.url ?? '/');
    if (served.intercept?.(request, response) === true) return;
    serveWithBackend(backend, root, request, response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the git server has no port');
  const served: GitHttpServer = {
    // The work repository's folder is repo.git: http-backend finds its .git inside.
    url: `http://127.0.0.1:${address.port}/repo.git`,
    port: address.port,
    requests,
    intercept: undefined,
    commit(message, files) {
      for (const [path, content] of Object.entries(files)) {
        const file = join(work, path);
        if (content === null) rmSync(file);
        else {
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, content);
        }
      }
      git(work, ['add', '--all']);
      git(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
      return git(work, ['rev-parse', 'HEAD']);
    },
    blobOf: (path) => git(work, ['rev-parse', `HEAD:${path}`]),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  return served;
}
