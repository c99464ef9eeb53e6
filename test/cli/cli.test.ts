// The command line as people run it: compiled (from the test build, and as the package bin for serve and npm exec), in a
// child process against a real service on a loopback port (extractive answers, no provider), a token-protected one,
// and no service at all.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { access, appendFile, chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { findFreePort } from '../support/child-service.js';
import { packageRoot } from '../../src/package-root.js';
import { compiledCliEntryPoint, packageBin } from '../support/compiled-entry.js';
import { fastapiDocsDirectory, fastapiPagePaths } from '../support/fastapi-docs.js';
import type { ProviderDouble } from '../support/provider-double.js';
import { startService, startServiceWithProvider, type ListeningTestService } from '../support/service.js';

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Variables of the test process that must not reach the command line or a service it starts. */
const configurationVariable = /^(KNOWLEDGE_AGENT_|LLM_|KNOWLEDGE_DIR$|TEMPERATURE$|HOST$|PORT$)/;
const inheritedEnvironment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !configurationVariable.test(name)));

interface RunOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** The executable and its leading arguments; the compiled entry point by default. */
  readonly command?: readonly string[];
  readonly timeoutMs?: number;
}

/** Runs the command line asynchronously (the service under test lives in this process and must keep answering). */
function run(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const [executable, ...leading] = options.command ?? [process.execPath, compiledCliEntryPoint()];
  const child = spawn(executable as string, [...leading, ...args], {
    cwd: options.cwd ?? packageRoot,
    env: { ...inheritedEnvironment, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('knowledge-agent command line', () => {
  let service: ListeningTestService;
  let workspace: string;
  let pageServer: Server;
  let pageUrl: string;
  /** Against the open, extractive service, from the workspace folder. */
  const cli = (args: readonly string[], env: Record<string, string> = {}) =>
    run(args, { cwd: workspace, env: { KNOWLEDGE_AGENT_URL: service.baseUrl, ...env } });

  before(async () => {
    compiledCliEntryPoint();
    // Listening: the spawned command line talks to the service over HTTP.
    service = await startService({ listen: true, apiKey: undefined, environment: { KNOWLEDGE_AGENT_MODEL: 'extractive' } });
    workspace = await mkdtemp(join(tmpdir(), 'knowledge-agent-cli-'));
    const docs = join(workspace, 'docs');
    await mkdir(join(docs, 'ops'), { recursive: true });
    await mkdir(join(docs, '.drafts'));
    await mkdir(join(docs, 'node_modules', 'some-package'), { recursive: true });
    await writeFile(
      join(docs, 'deployment.md'),
      '# Deployment\n\nThe service is deployed with a rolling update. Each rollout waits for health checks to pass.\n',
    );
    await writeFile(join(docs, 'caching.txt'), 'Responses are cached for five minutes. The cache is cleared on every deployment.\n');
    await writeFile(
      join(docs, 'ops', 'tokens.html'),
      '<!doctype html><html><head><title>Token rotation</title></head><body><main><h1>Token rotation</h1><p>Access tokens rotate every ninety days. Old tokens stop working a week after rotation.</p></main></body></html>',
    );
    await writeFile(join(docs, 'diagram.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    await writeFile(join(docs, '.drafts', 'secret.md'), '# Draft\n\nNot for ingestion.\n');
    await writeFile(join(docs, 'node_modules', 'some-package', 'README.md'), '# Some package\n\nNot documentation of ours.\n');
    await writeFile(join(workspace, 'notes.docx'), 'not a supported document');

    pageServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        "<!doctype html><html><head><title>Backups</title></head><body><main><h1>Backups</h1><p>Backups run nightly at two o'clock and are kept for thirty days.</p></main></body></html>",
      );
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', () => resolve()));
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/backups.html`;
  });

  after(async () => {
    await service?.dispose();
    await new Promise((resolve) => pageServer?.close(resolve));
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  });

  it('prints help for the program and each command, and exits 2 on a command line that is not valid', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    for (const command of ['serve', 'ingest', 'search', 'ask', 'namespaces'])
      assert.match(help.stdout, new RegExp(`^  ${command}\\s+\\S`, 'm'));
    for (const command of ['serve', 'ingest', 'search', 'ask', 'namespaces']) {
      const commandHelp = await run([command, '--help']);
      assert.equal(commandHelp.code, 0, command);
      assert.match(commandHelp.stdout, new RegExp(`^Usage: knowledge-agent ${command}`), command);
    }
    assert.match((await run(['ingest', '--help'])).stdout, /--namespace NAME/);

    const unknownCommand = await run(['frobnicate']);
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /^knowledge-agent: unknown command "frobnicate"/);
    const unknownOption = await run(['search', 'query', '--colour']);
    assert.equal(unknownOption.code, 2);
    assert.match(unknownOption.stderr, /^knowledge-agent: Unknown option '--colour'\nRun "knowledge-agent search --help" for usage\.\n$/);
    const badLimit = await run(['search', 'query', '--limit', 'many']);
    assert.equal(badLimit.code, 2);
    assert.match(badLimit.stderr, /--limit: must be a whole number from 0 to 20/);
    assert.equal((await run(['ingest'])).code, 2);
    const pruneAlone = await run(['ingest', 'https://example.com/docs/', '--prune']);
    assert.equal(pruneAlone.code, 2);
    assert.match(pruneAlone.stderr, /--prune: only with --crawl/);
    const crawlFiles = await run(['ingest', 'README.md', '--crawl']);
    assert.equal(crawlFiles.code, 2);
    assert.match(crawlFiles.stderr, /--crawl: give the URL of a site to crawl/);
    assert.match(
      (await run(['ingest', 'https://example.com/', '--crawl', '--max-pages', '0'])).stderr,
      /--max-pages: must be a whole number from 1 to 1000/,
    );
    assert.equal((await run(['ask'])).code, 2);
    assert.equal((await run(['search', 'x', '--url', 'ftp://example.com'])).code, 2);
  });

  it('ingests a folder: one plain line per source, the summary last, and other files left out', async () => {
    const result = await cli(['ingest', 'docs', '--namespace', 'cli']);
    assert.equal(result.code, 0, result.stderr);
    const output = lines(result.stdout);
    assert.equal(output.at(-1), 'saved 3, updated 0, skipped 0, failed 0');
    assert.deepEqual(output.slice(0, -1).sort(), [
      'saved  docs/caching.txt  1 chunk',
      'saved  docs/deployment.md  1 chunk',
      'saved  docs/ops/tokens.html  1 chunk',
    ]);
    // Hidden folders and node_modules are not walked; the picture is counted, not uploaded.
    assert.match(result.stderr, /^left out 1 file that is not \.md /);
    assert.doesNotMatch(result.stdout, /secret|some-package|diagram/);
  });

  it('skips unchanged documents, updates changed ones, and reports local refusals with exit code 1', async () => {
    const again = await cli(['ingest', 'docs', '--namespace', 'cli']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(lines(again.stdout).at(-1), 'saved 0, updated 0, skipped 3, failed 0');
    assert.ok(lines(again.stdout).includes('skipped  docs/deployment.md  unchanged'));

    await writeFile(
      join(workspace, 'docs', 'deployment.md'),
      '# Deployment\n\nThe service is deployed with a blue-green switch. Each rollout waits for health checks to pass.\n',
    );
    await writeFile(join(workspace, 'huge.md'), Buffer.alloc(6_000_001, 'a'));
    const mixed = await cli(['ingest', 'docs/deployment.md', 'notes.docx', 'huge.md', 'missing.md', '--namespace', 'cli']);
    assert.equal(mixed.code, 1);
    const output = lines(mixed.stdout);
    assert.equal(output.at(-1), 'saved 0, updated 1, skipped 1, failed 2');
    // A file given by itself is its name at the service: the one the folder's walk sent as deployment.md, replaced and said so.
    assert.ok(
      output.some((line) =>
        /^updated {2}docs\/deployment\.md {2}1 chunk, replaced deployment\.md of \d{4}-\d\d-\d\d \d\d:\d\d UTC$/.test(line),
      ),
      mixed.stdout,
    );
    assert.equal(output.at(-2), 'replaced 1 stored document: deployment.md');
    assert.ok(
      output.some((line) => /^skipped {2}notes\.docx {2}unsupported file type \(accepted: \.md, /.test(line)),
      mixed.stdout,
    );
    assert.ok(output.includes('failed  huge.md  6.0 MB, over the 6.0 MB limit for a file'), mixed.stdout);
    assert.ok(output.includes('failed  missing.md  no such file or directory'), mixed.stdout);
    // Nothing refused locally reached the service.
    const listing = (await (await service.get('/tools/documents?namespace=cli')).json()) as { documents: { source: string }[] };
    assert.deepEqual(listing.documents.map((document) => document.source).sort(), ['caching.txt', 'deployment.md', 'ops/tokens.html']);
  });

  it('ingests a URL through the service, and fails files of two folders given whose paths collide', async () => {
    await mkdir(join(workspace, 'readmes', 'a'), { recursive: true });
    await mkdir(join(workspace, 'readmes', 'b'));
    await writeFile(join(workspace, 'readmes', 'a', 'README.md'), '# Alpha\n\nAlpha readme.\n');
    await writeFile(join(workspace, 'readmes', 'b', 'README.md'), '# Beta\n\nBeta readme.\n');
    const result = await cli(['ingest', pageUrl, 'readmes/a', 'readmes/b', '-n', 'web']);
    assert.equal(result.code, 1);
    const output = lines(result.stdout);
    assert.ok(output.includes(`saved  ${pageUrl}  1 chunk`), result.stdout);
    assert.ok(output.includes('saved  readmes/a/README.md  1 chunk'), result.stdout);
    assert.ok(
      output.some((line) =>
        line.startsWith('failed  readmes/b/README.md  same path (README.md) as readmes/a/README.md relative to the folders given'),
      ),
      result.stdout,
    );
    assert.equal(output.at(-1), 'saved 2, updated 0, skipped 0, failed 1');

    // Their common folder keeps them apart: a/README.md and b/README.md are two documents.
    const parent = await cli(['ingest', 'readmes', '-n', 'readmes']);
    assert.equal(parent.code, 0, parent.stdout);
    assert.equal(lines(parent.stdout).at(-1), 'saved 2, updated 0, skipped 0, failed 0');
    const listing = (await (await service.get('/tools/documents?namespace=readmes')).json()) as {
      documents: { source: string; file: string }[];
    };
    assert.deepEqual(listing.documents.map((document) => [document.source, document.file]).sort(), [
      ['a/README.md', 'a-alpha.md'],
      ['b/README.md', 'b-beta.md'],
    ]);
  });

  it('crawls a site with --crawl, a line per page, and --prune removes the pages it no longer finds', async () => {
    const pages = new Map([
      ['a.html', 'Alerts page the on-call engineer within five minutes of an outage.'],
      ['b.html', 'Backups of the alert history are kept for a year.'],
    ]);
    const site = createServer((request, response) => {
      const name = (request.url ?? '/').replace('/site/', '');
      const text = name === '' ? 'Operations guide.' : pages.get(name);
      if (text === undefined) {
        response.writeHead(404).end();
        return;
      }
      const links = name === '' ? [...pages.keys()].map((page) => `<a href="${page}">${page}</a>`).join(' ') : '';
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html><head><title>${name || 'Operations'}</title></head><body><main><h1>${name || 'Operations'}</h1><p>${text}</p>${links}</main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
    try {
      const root = `http://127.0.0.1:${(site.address() as AddressInfo).port}/site/`;
      const first = await cli(['ingest', root, '--crawl', '--max-pages', '10', '-n', 'crawled']);
      assert.equal(first.code, 0, first.stdout + first.stderr);
      const output = lines(first.stdout);
      for (const page of ['', 'a.html', 'b.html']) assert.ok(output.includes(`saved  ${root}${page}  1 chunk`), first.stdout);
      assert.equal(output.at(-1), 'saved 3, updated 0, skipped 0, failed 0');

      pages.delete('b.html');
      const again = await cli(['ingest', root, '--crawl', '--prune', '-n', 'crawled']);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.ok(lines(again.stdout).includes(`removed  ${root}b.html  no longer found by the crawl`), again.stdout);
      assert.equal(lines(again.stdout).at(-1), 'saved 0, updated 1, skipped 1, failed 0, removed 1');
      const listing = (await (await service.get('/tools/documents?namespace=crawled')).json()) as {
        documents: { source: string }[];
      };
      assert.deepEqual(listing.documents.map((document) => document.source).sort(), [root, `${root}a.html`]);
    } finally {
      await new Promise((resolve) => site.close(resolve));
      // The namespace listing below counts this suite's namespaces.
      await service.send('DELETE', '/api/namespaces/crawled');
    }
  });

  it('maps a folder to its published pages with --base-url: each document is known by its URL', async () => {
    const result = await cli(['ingest', 'docs', '--base-url', 'https://docs.example.com/ops', '-n', 'published']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const listing = (await (await service.get('/tools/documents?namespace=published')).json()) as {
      documents: { source: string }[];
    };
    assert.deepEqual(listing.documents.map((document) => document.source).sort(), [
      'https://docs.example.com/ops/caching.txt',
      'https://docs.example.com/ops/deployment',
      'https://docs.example.com/ops/ops/tokens.html',
    ]);
    await service.send('DELETE', '/api/namespaces/published');

    const urlsOnly = await cli(['ingest', 'https://example.com/a.html', '--base-url', 'https://docs.example.com/']);
    assert.equal(urlsOnly.code, 2);
    assert.match(urlsOnly.stderr, /--base-url: give the files or folder/);
    assert.equal((await cli(['ingest', 'docs', '--base-url', 'docs.example.com'])).code, 2);
  });

  it('searches: numbered matches with title, score, source and excerpt, or the JSON response', async () => {
    const result = await cli(['search', 'how long are responses cached', '--namespace', 'cli', '--limit', '2']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^1\. Caching {2}\(score \d\.\d{3}\)\n {3}\S*caching\.md\n {3}Responses are cached for five minutes\./);
    assert.match(result.stdout, /\n\n2\. /);
    assert.doesNotMatch(result.stdout, /\n3\. /);

    const json = await cli(['search', 'token rotation', '-n', 'cli', '--mode', 'lexical', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout) as { mode: string; matches: { title: string }[] };
    assert.equal(body.mode, 'lexical');
    assert.equal(body.matches[0]?.title, 'Token rotation');

    const nothing = await cli(['search', 'anything', '-n', 'no-such-namespace']);
    assert.equal(nothing.code, 0);
    assert.equal(nothing.stdout, 'no matches for "anything" in namespace no-such-namespace\n');
    assert.equal(nothing.stderr, 'note: the namespace "no-such-namespace" does not exist: nothing has been ingested into it\n');
  });

  it('asks: streams the cited answer to stdout, the search to stderr, and ends with the Sources line', async () => {
    const result = await cli(['ask', 'how long are responses cached?', '--namespace', 'cli']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Responses are cached for five minutes \[\d\]/);
    assert.equal(lines(result.stdout).at(-1), 'Sources: Caching');
    assert.match(result.stderr, /^searching "how long are responses cached\?" -> \d+ snippets?\n$/);

    // The mention the question already holds is not doubled; --json gives the whole answer at once.
    const json = await cli(['ask', '@knowledge when are backups kept?', '-n', 'web', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout) as { query: string; answer: string; matches: unknown[] };
    assert.equal(body.query, 'when are backups kept?');
    assert.match(body.answer, /thirty days \[\d\]/);
    assert.ok(body.answer.endsWith(`\nSources: [Backups](${pageUrl})`), 'a web page is cited by its title, linked to its URL');
    assert.equal(json.stderr, '');
  });

  it('evaluates a question file: retrieval, answers and abstention, a table, JSON, and floors that fail the run', async () => {
    const questions = join(workspace, 'questions.jsonl');
    await writeFile(
      questions,
      [
        '{"id":"cache","question":"how long are responses cached?","pages":{"caching.txt":2},"key_facts":["five minutes"]}',
        '{"id":"tokens","question":"how often do access tokens rotate?","pages":{"ops/tokens.html":2},"key_facts":["ninety days"]}',
        '{"id":"bread","question":"Which sourdough hydration suits a rye starter?","out_of_scope":true}',
      ].join('\n'),
    );
    const table = await cli(['eval', '--namespace', 'cli', '--questions', 'questions.jsonl']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^namespace "cli", 3 questions \(2 in scope, 1 out of scope\); ranking hybrid$/m);
    assert.match(table.stdout, /^answers +good 2 \(100%\)/m);
    assert.match(table.stdout, /^abstention out-of-scope refused 1 \(100%\) +in-scope refused 0 \(0%\)$/m);
    assert.match(table.stdout, /^cache +good +1\.00 +caching\.txt +how long are responses cached\?$/m);

    const json = await cli(['eval', '-n', 'cli', '-q', questions, '--json', '--min-good', '100%', '--min-ndcg', '0.9']);
    assert.equal(json.code, 0, json.stderr);
    const summary = JSON.parse(json.stdout) as {
      retrieval: { ndcg10: number };
      answers: { good: number };
      questions: { id: string; covered: boolean }[];
    };
    assert.equal(summary.retrieval.ndcg10, 1);
    assert.equal(summary.answers.good, 2);
    assert.deepEqual(
      summary.questions.map((question) => [question.id, question.covered]),
      [
        ['cache', true],
        ['tokens', true],
        ['bread', false],
      ],
    );

    // A floor the figures do not reach fails the run (for CI); a bad floor or file is a usage error.
    await appendFile(
      questions,
      '\n{"id":"backups","question":"when are backups kept?","pages":{"backups.html":2},"key_facts":["thirty days"]}\n',
    );
    const below = await cli(['eval', '-n', 'cli', '-q', 'questions.jsonl', '--min-good', '0.9']);
    assert.equal(below.code, 1);
    assert.match(below.stderr, /^knowledge-agent: good answers 2 of 3 are below --min-good 0\.9$/m);
    const badFloor = await cli(['eval', '-n', 'cli', '-q', 'questions.jsonl', '--min-ndcg', '2']);
    assert.equal(badFloor.code, 2);
    assert.match(badFloor.stderr, /--min-ndcg must be a share between 0 and 1/);
    await writeFile(join(workspace, 'broken.jsonl'), '{"question":"x"}\n');
    const broken = await cli(['eval', '-n', 'cli', '-q', 'broken.jsonl']);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /^knowledge-agent: broken\.jsonl:1: give pages/);
  });

  it('asks a namespace that does not exist: the answer says so, and the command exits 1', async () => {
    const result = await cli(['ask', 'how long are responses cached?', '--namespace', 'no-such-namespace']);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /The namespace "no-such-namespace" does not exist/);
    assert.match(result.stderr, /^knowledge-agent: there is no namespace "no-such-namespace" \(knowledge-agent namespaces lists them\)$/m);
  });

  it('explains a wrong mention instead of printing nothing', async () => {
    const result = await cli(['ask', 'how long are responses cached?', '-n', 'cli', '--mention', '@docs']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^knowledge-agent: the agent did not answer: .*"@docs" is not its mention \(pass --mention\)\n$/);
  });

  it('lists namespaces with their document and chunk counts', async () => {
    const result = await cli(['namespaces']);
    assert.equal(result.code, 0, result.stderr);
    const [header, ...rows] = lines(result.stdout);
    assert.match(header ?? '', /^NAMESPACE\s+DOCUMENTS\s+CHUNKS\s+EMBEDDING MODEL$/);
    assert.ok(
      rows.some((row) => /^cli\s+3\s+3\s+local:all-MiniLM-L6-v2-int8$/.test(row)),
      result.stdout,
    );
    assert.ok(
      rows.some((row) => /^web\s+2\s+2\s/.test(row)),
      result.stdout,
    );
    const json = JSON.parse((await cli(['namespaces', '--json'])).stdout) as { namespaces: { name: string }[] };
    assert.ok(json.namespaces.some((namespace) => namespace.name === 'cli'));
  });

  it('says clearly when no service is listening, with exit code 1', async () => {
    const port = await findFreePort();
    const expected = `knowledge-agent: cannot reach the Knowledge Agent at http://127.0.0.1:${port} (connection refused). Is it running? Start it with: knowledge-agent serve\n`;
    for (const args of [['namespaces'], ['search', 'anything'], ['ask', 'anything'], ['ingest', 'docs']]) {
      const result = await run([...args, '--url', `http://127.0.0.1:${port}`], { cwd: workspace });
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(
        result.stderr
          .split('\n')
          .filter((line) => !line.startsWith('left out'))
          .join('\n'),
        expected,
        args.join(' '),
      );
      assert.equal(result.stdout, '', args.join(' '));
    }
    // The default URL comes from KNOWLEDGE_AGENT_URL.
    const fromEnvironment = await run(['namespaces'], { env: { KNOWLEDGE_AGENT_URL: `http://127.0.0.1:${port}` } });
    assert.equal(fromEnvironment.stderr, expected);
  });

  it('runs the service with serve, as npm start does, its options taking the place of their variables', async () => {
    const port = await findFreePort();
    const storage = join(workspace, 'served');
    const environmentStorage = join(workspace, 'served-from-environment');
    // The package's own build, as installed: the one test that runs the service compiled by tsc, not by the test build.
    const server = spawn(process.execPath, [packageBin(), 'serve', '--port', String(port), '--storage', storage], {
      cwd: workspace,
      env: {
        ...inheritedEnvironment,
        KNOWLEDGE_AGENT_MODEL: 'extractive',
        KNOWLEDGE_AGENT_RATE_LIMIT: '0',
        PORT: 'not used',
        KNOWLEDGE_AGENT_STORAGE_PATH: environmentStorage,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    server.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    try {
      let listing: CliRun | undefined;
      for (let attempt = 0; attempt < 120; attempt++) {
        listing = await run(['namespaces', '--url', `http://127.0.0.1:${port}`]);
        if (listing.code === 0 || server.exitCode !== null) break;
        await sleep(250);
      }
      assert.equal(listing?.code, 0, `${listing?.stderr}\n${output}`);
      assert.match(listing?.stdout ?? '', /^no namespaces yet/);
      assert.match(output, new RegExp(`Server listening at http://127\\.0\\.0\\.1:${port}`));
      assert.match(
        output,
        new RegExp(
          `playground at http://127\\.0\\.0\\.1:${port}/, API reference at http://127\\.0\\.0\\.1:${port}/docs \\(OpenAPI: http://127\\.0\\.0\\.1:${port}/openapi\\.json\\)`,
        ),
      );
      await access(storage);
      await assert.rejects(access(environmentStorage), { code: 'ENOENT' });
    } finally {
      server.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  it('serve names every invalid setting at once, and exits 1 when it cannot start', async () => {
    const invalid = await run(['serve', '--port', '0'], {
      cwd: workspace,
      env: { KNOWLEDGE_AGENT_TOP_K: 'many', KNOWLEDGE_AGENT_WRITE_TOKENS: 'no-namespaces', KNOWLEDGE_AGENT_MODEL: 'extractive' },
    });
    assert.equal(invalid.code, 1);
    const prefix = 'knowledge-agent: invalid configuration: ';
    assert.ok(
      lines(invalid.stderr).every((line) => line.startsWith(prefix)),
      invalid.stderr,
    );
    const named = lines(invalid.stderr).map((line) => line.slice(prefix.length).split(':')[0]);
    assert.deepEqual(named, ['KNOWLEDGE_AGENT_TOP_K', 'KNOWLEDGE_AGENT_WRITE_TOKENS']);
    const occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (occupied.address() as AddressInfo).port;
      const busy = await run(['serve', '--port', String(port), '--storage', join(workspace, 'never-served')], {
        cwd: workspace,
        env: { KNOWLEDGE_AGENT_MODEL: 'extractive' },
      });
      // The half-started service is closed, so the process ends by itself.
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /^knowledge-agent: failed to start: listen EADDRINUSE/);
    } finally {
      await new Promise((resolve) => occupied.close(resolve));
    }
  });

  it('runs from the checkout with npm exec, as the package bin', async () => {
    packageBin();
    const cache = await mkdtemp(join(tmpdir(), 'knowledge-agent-npm-cache-'));
    try {
      const result = await run(['exec', '--', 'knowledge-agent', '--help'], {
        command: [process.platform === 'win32' ? 'npm.cmd' : 'npm'],
        cwd: packageRoot,
        // Its own npm cache, offline, and no lifecycle scripts: npm exec would otherwise run `prepare` (a rebuild
        // of dist/ under the other tests' feet) the first time it links the checkout into a cache.
        env: {
          npm_config_cache: cache,
          npm_config_offline: 'true',
          npm_config_ignore_scripts: 'true',
          npm_config_update_notifier: 'false',
        },
        timeoutMs: 120_000,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Usage: knowledge-agent <command> \[options\]/);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});

describe('knowledge-agent command line against a token-protected service', () => {
  let provider: ProviderDouble;
  let service: ListeningTestService;
  let workspace: string;
  const cli = (args: readonly string[], env: Record<string, string> = {}) =>
    run(args, { cwd: workspace, env: { KNOWLEDGE_AGENT_URL: service.baseUrl, ...env } });

  before(async () => {
    // Listening: the spawned command line talks to the service over HTTP.
    ({ provider, service } = await startServiceWithProvider({
      listen: true,
      environment: {
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:handbook',
        KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:handbook',
      },
    }));
    workspace = await mkdtemp(join(tmpdir(), 'knowledge-agent-cli-'));
    await writeFile(join(workspace, 'vacation.md'), '# Vacation Policy\n\nEmployees get twenty-five vacation days per year.\n');
  });

  after(async () => {
    await service?.dispose();
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  });

  it('answers 401 with one clear line, and works with --token or KNOWLEDGE_AGENT_TOKEN', async () => {
    const anonymous = await cli(['namespaces']);
    assert.equal(anonymous.code, 1);
    assert.equal(
      anonymous.stderr,
      'knowledge-agent: unauthorized: this route needs a token: send Authorization: Bearer <token> or X-API-Key: <token> (pass --token or set KNOWLEDGE_AGENT_TOKEN)\n',
    );
    const wrong = await cli(['ingest', 'vacation.md', '-n', 'handbook', '--token', 'reader-token-for-tests']);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stderr, 'knowledge-agent: unauthorized: the token is not valid for this route\n');
    assert.equal(wrong.stdout, '');

    const ingest = await cli(['ingest', 'vacation.md', '-n', 'handbook'], { KNOWLEDGE_AGENT_TOKEN: 'writer-token-for-tests' });
    assert.equal(ingest.code, 0, ingest.stderr);
    assert.deepEqual(lines(ingest.stdout), ['saved  vacation.md  1 chunk', 'saved 1, updated 0, skipped 0, failed 0']);
    const forbidden = await cli(['ingest', 'vacation.md', '-n', 'other'], { KNOWLEDGE_AGENT_TOKEN: 'writer-token-for-tests' });
    assert.equal(forbidden.code, 1);
    assert.equal(forbidden.stderr, 'knowledge-agent: forbidden: the token does not grant access to the namespace "other"\n');

    const listing = await cli(['namespaces', '--token', 'reader-token-for-tests']);
    assert.equal(listing.code, 0, listing.stderr);
    assert.match(listing.stdout, /^handbook\s+1\s+1\s/m);
  });

  it('prints the error of a broken answer stream and exits 1', async () => {
    provider.queueChat({ text: 'Employees get twenty-five days and more words here', breakAfterChunks: 3 });
    const result = await cli(['ask', 'how many vacation days?', '-n', 'handbook', '--token', 'reader-token-for-tests']);
    assert.equal(result.code, 1);
    const [search, error, ...rest] = lines(result.stderr);
    assert.match(search ?? '', /^searching "how many vacation days\?" -> 1 snippet$/);
    assert.match(error ?? '', /^knowledge-agent: provider_error: /);
    assert.deepEqual(rest, []);
  });
});

describe('knowledge-agent ingest of a documentation tree whose pages share base names', () => {
  let service: ListeningTestService;
  let workspace: string;

  before(async () => {
    // Listening: the spawned command line talks to the service over HTTP.
    ({ service } = await startServiceWithProvider({ listen: true }));
    workspace = await mkdtemp(join(tmpdir(), 'knowledge-agent-cli-'));
  });

  after(async () => {
    await service?.dispose();
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  });

  it('stores all 62 FastAPI pages (index.md, middleware.md... in several folders), 0 refused, each under its path', async () => {
    const result = await run(['ingest', fastapiDocsDirectory, '--namespace', 'fastapi'], {
      cwd: workspace,
      env: { KNOWLEDGE_AGENT_URL: service.baseUrl },
      timeoutMs: 240_000,
    });
    assert.equal(result.code, 0, result.stderr);
    const output = lines(result.stdout);
    // The 62 pages and the tree's SOURCE.txt; its LICENSE (no extension) is not a document.
    assert.equal(output.at(-1), 'saved 63, updated 0, skipped 0, failed 0');
    assert.equal(output.filter((line) => line.startsWith('saved  ')).length, 63);
    assert.match(result.stderr, /^left out 1 file that is not \.md /m);

    const pages = await fastapiPagePaths();
    const listing = (await (await service.get('/tools/documents?namespace=fastapi')).json()) as {
      documents: { source: string; file: string }[];
    };
    assert.deepEqual(
      listing.documents
        .map((document) => document.source)
        .filter((source) => source.endsWith('.md'))
        .sort(),
      pages,
    );
    assert.equal(new Set(listing.documents.map((document) => document.file)).size, 63);
    const fileOf = (source: string) => listing.documents.find((document) => document.source === source)?.file;
    assert.equal(fileOf('tutorial/middleware.md'), 'tutorial-middleware.md');
    assert.equal(fileOf('advanced/middleware.md'), 'advanced-middleware.md');
  });

  it('updates a page changed in a copy of the tree, names the replaced file, and leaves its namesakes alone', async () => {
    const copy = join(workspace, 'fastapi-docs');
    await cp(fastapiDocsDirectory, copy, { recursive: true });
    await chmod(join(copy, 'advanced'), 0o755);
    await chmod(join(copy, 'advanced', 'middleware.md'), 0o644);
    await appendFile(join(copy, 'advanced', 'middleware.md'), '\nOne more paragraph about the order of middleware.\n');
    const result = await run(['ingest', 'fastapi-docs', '-n', 'fastapi'], {
      cwd: workspace,
      env: { KNOWLEDGE_AGENT_URL: service.baseUrl },
      timeoutMs: 240_000,
    });
    assert.equal(result.code, 0, result.stderr);
    const output = lines(result.stdout);
    assert.equal(output.at(-1), 'saved 0, updated 1, skipped 62, failed 0');
    assert.equal(output.at(-2), 'replaced 1 stored document: advanced-middleware.md');
    assert.ok(
      output.some((line) =>
        /^updated {2}fastapi-docs\/advanced\/middleware\.md {2}\d+ chunks?, replaced advanced-middleware\.md of /.test(line),
      ),
      result.stdout,
    );
    assert.ok(output.includes('skipped  fastapi-docs/tutorial/middleware.md  unchanged'), result.stdout);
  });
});

describe('knowledge-agent ingest against a service without progress streaming', () => {
  let server: Server;
  let baseUrl: string;
  let workspace: string;
  /** Answers queued per request: status, headers, body. */
  const answers: { status: number; headers?: Record<string, string>; body: unknown }[] = [];
  let requests = 0;

  before(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'knowledge-agent-cli-'));
    await writeFile(join(workspace, 'a.md'), '# A\n\nAlpha.\n');
    await writeFile(join(workspace, 'b.md'), '\n');
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        requests++;
        const answer = answers.shift() ?? { status: 500, body: { error: { code: 'internal_error', message: 'no answer queued' } } };
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  });

  it('waits out a rate limit, then reads the plain JSON answer source by source', async () => {
    answers.push(
      {
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: { code: 'rate_limited', message: 'Rate limit exceeded, retry in 1 second' } },
      },
      {
        status: 200,
        body: {
          namespace: 'docs',
          saved: 1,
          updated: 0,
          skipped: 0,
          errors: [{ source: 'b.md', error: 'b.md holds no text', code: 'document_empty' }],
          files: [{ file: 'a.md', status: 'saved' }],
        },
      },
    );
    const result = await run(['ingest', 'a.md', 'b.md', '--url', baseUrl], { cwd: workspace });
    assert.equal(result.code, 1);
    assert.equal(requests, 2);
    assert.deepEqual(lines(result.stdout), ['saved  a.md', 'failed  b.md  b.md holds no text', 'saved 1, updated 0, skipped 0, failed 1']);
    assert.equal(result.stderr, 'rate limited by the service; retrying in 1 s\n');
  });

  it('fails the sources of a request the service refuses, and names a server that is not the Knowledge Agent', async () => {
    answers.push({ status: 500, body: { error: { code: 'internal_error', message: 'an unexpected error occurred (request req-1)' } } });
    const refused = await run(['ingest', 'a.md', 'b.md', '--url', baseUrl], { cwd: workspace });
    assert.equal(refused.code, 1);
    assert.deepEqual(lines(refused.stdout), [
      'failed  a.md  internal_error: an unexpected error occurred (request req-1)',
      'failed  b.md  internal_error: an unexpected error occurred (request req-1)',
      'saved 0, updated 0, skipped 0, failed 2',
    ]);

    answers.push({ status: 502, body: '<html>Bad gateway</html>' });
    const notTheService = await run(['namespaces', '--url', baseUrl]);
    assert.equal(notTheService.code, 1);
    assert.match(
      notTheService.stderr,
      /^knowledge-agent: the Knowledge Agent at http:\/\/127\.0\.0\.1:\d+ answered HTTP 502 Bad Gateway without an error body \(is --url the Knowledge Agent\?\)\n$/,
    );
  });
});
