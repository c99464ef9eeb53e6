// Ctrl-C during `knowledge-agent ingest --crawl` (the compiled command line in a child process, against a service in
// this process): the command exits 130, its request's connection closes with it, and the service stops the crawl (the
// site sees no request 2 s after) and keeps the pages it stored.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { packageRoot } from '../../src/package-root.js';
import { compiledCliEntryPoint } from '../support/compiled-entry.js';
import { startEndlessSite, type EndlessSite } from '../support/endless-site.js';
import { startServiceWithProvider, type ListeningTestService } from '../support/service.js';
import { until } from '../support/until.js';

/** Variables of the test process that must not reach the command line. */
const configurationVariable = /^(KNOWLEDGE_AGENT_|LLM_|KNOWLEDGE_DIR$|TEMPERATURE$|HOST$|PORT$)/;

describe('knowledge-agent ingest --crawl interrupted with Ctrl-C', () => {
  let service: ListeningTestService;
  let site: EndlessSite;

  before(async () => {
    // Listening: the spawned CLI process crawls through the service over HTTP.
    ({ service } = await startServiceWithProvider({ listen: true }));
    site = await startEndlessSite({ delayMs: 10 });
  });

  after(async () => {
    await service.dispose();
    await site.close();
  });

  it('exits 130, and the service stops the crawl and keeps what it stored', { timeout: 60_000 }, async () => {
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !configurationVariable.test(name)));
    const child = spawn(
      process.execPath,
      [
        compiledCliEntryPoint(),
        'ingest',
        site.startUrl,
        '--crawl',
        '--max-pages',
        '1000',
        '--max-depth',
        '10',
        '-n',
        'cli',
        '--url',
        service.baseUrl,
      ],
      { cwd: packageRoot, env: environment, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const folder = join(service.storageRoot, 'cli');
    const stored = () => (existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.md')) : []);
    await until(() => stored().length >= 3, 'three crawled pages stored', 30_000);

    const interruptedAt = performance.now();
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /interrupted; sources already reported are stored/);
    await delay(3_000);
    const late = site.requests.filter((request) => request.at > interruptedAt + 2_000);
    assert.deepEqual(late, [], 'the site was asked for pages after the command line was interrupted');
    assert.ok(site.pageRequests().length < 1000, 'the crawl had ended before the interruption');
    const line = service.logs.find((logged) => logged.includes('ingest into namespace \\"cli\\" stopped (request_aborted'));
    assert.ok(line !== undefined, 'the service did not log the stop');
    assert.match(line, new RegExp(`: ${stored().length} documents stored before the stop`));
  });
});
