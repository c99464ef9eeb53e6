// Configuration: defaults, aliases, and invalid values that stop start-up with a line naming the variable.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { compiledEntryPoint } from './support/compiled-entry.js';

describe('loadConfig', () => {
  let workingDirectory: string;
  before(async () => {
    workingDirectory = await mkdtemp(join(tmpdir(), 'knowledge-agent-config-'));
  });
  after(async () => {
    await rm(workingDirectory, { recursive: true, force: true });
  });

  it('applies the contract defaults', () => {
    const config = loadConfig({}, workingDirectory);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.equal(config.topK, 4);
    assert.equal(config.defaultNamespace, 'docs');
    assert.equal(config.storagePath, 'knowledge');
    assert.equal(config.storageRoot, join(workingDirectory, 'knowledge'));
    assert.equal(config.mention, '@knowledge');
    assert.equal(config.provider.apiKey, undefined);
    assert.equal(config.provider.temperature, 0.2);
    assert.deepEqual(config.fileRoots, [workingDirectory]);
    assert.equal(config.allowPrivateUrls, false);
    assert.deepEqual(config.timeouts, { headersMs: 10_000, requestMs: 120_000, keepAliveMs: 10_000, idleMs: 300_000 });
    assert.equal(config.conversionTimeoutMs, 30_000);
    assert.ok(Object.isFrozen(config));
  });

  it('resolves symlinks in the file roots, since file sources are compared after resolving theirs', async () => {
    const target = join(workingDirectory, 'real-docs');
    const link = join(workingDirectory, 'linked-docs');
    await mkdir(target);
    await symlink(target, link);
    assert.deepEqual(loadConfig({ KNOWLEDGE_AGENT_FILE_ROOTS: `${link}:relative-missing` }, workingDirectory).fileRoots, [
      target,
      join(workingDirectory, 'relative-missing'),
    ]);
  });

  it('accepts the Variant 2 names, and the Variant 1 name wins when both are set', () => {
    const aliased = loadConfig({ LLM_MODEL: 'small-model', TEMPERATURE: '0.7', KNOWLEDGE_DIR: 'kb' }, workingDirectory);
    assert.equal(aliased.provider.chatModel, 'small-model');
    assert.equal(aliased.provider.temperature, 0.7);
    assert.equal(aliased.storagePath, 'kb');
    const both = loadConfig(
      { LLM_MODEL: 'alias', KNOWLEDGE_AGENT_MODEL: 'primary', TEMPERATURE: '0.7', KNOWLEDGE_AGENT_TEMPERATURE: '0' },
      workingDirectory,
    );
    assert.equal(both.provider.chatModel, 'primary');
    assert.equal(both.provider.temperature, 0);
  });

  it('refuses a grant of a namespace that requests can never name, saying which name they use', () => {
    assert.throws(
      () => loadConfig({ KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:docs,team.docs;omni-token-for-tests:*' }, workingDirectory),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems[0] ===
          'KNOWLEDGE_AGENT_READ_TOKENS: the namespace "team.docs" is not a namespace name (letters, digits, - and _, at most 64); requests for it use "teamdocs"' &&
        !error.problems[0].includes('reader-token-for-tests'),
    );
    assert.throws(
      () => loadConfig({ KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:...' }, workingDirectory),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^KNOWLEDGE_AGENT_WRITE_TOKENS: the namespace "\.\.\." is not a namespace name[^;]*$/.test(error.problems[0] ?? ''),
    );
    assert.equal(
      loadConfig({ KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:team-docs,team_2' }, workingDirectory).readTokens?.length,
      1,
    );
  });

  it('refuses a token shorter than 16 characters, naming the variable and the entry, never the token', () => {
    const problems = (environment: Record<string, string>): string[] => {
      try {
        loadConfig(environment, workingDirectory);
      } catch (error) {
        if (error instanceof ConfigError) return [...error.problems];
        throw error;
      }
      return [];
    };
    assert.deepEqual(
      problems({
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'writer-token-for-tests:docs;w:handbook',
        KNOWLEDGE_AGENT_READ_TOKENS: 'fifteen-chars-x:docs',
        KNOWLEDGE_AGENT_METRICS_TOKEN: 'scrape',
      }),
      [
        'KNOWLEDGE_AGENT_METRICS_TOKEN: must be at least 16 characters (its value is a secret and not shown)',
        'KNOWLEDGE_AGENT_WRITE_TOKENS: the token of entry 2 is shorter than 16 characters (generate one with `openssl rand -hex 24`)',
        'KNOWLEDGE_AGENT_READ_TOKENS: the token of entry 1 is shorter than 16 characters (generate one with `openssl rand -hex 24`)',
      ],
    );
    const sixteen = 'sixteen-chars-xy';
    const config = loadConfig({ KNOWLEDGE_AGENT_READ_TOKENS: `${sixteen}:docs`, KNOWLEDGE_AGENT_METRICS_TOKEN: sixteen }, workingDirectory);
    assert.equal(config.readTokens?.length, 1);
    assert.equal(config.metricsToken?.length, 1);
  });

  it('reports every invalid value at once, each naming its variable', () => {
    assert.throws(
      () =>
        loadConfig(
          {
            KNOWLEDGE_AGENT_TOP_K: 'abc',
            KNOWLEDGE_AGENT_TEMPERATURE: '3',
            PORT: '70000',
            LLM_BASE_URL: 'not a url',
            KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS: 'maybe',
            KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS: '500',
          },
          workingDirectory,
        ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const names = error.problems.map((problem) => problem.split(':')[0]).sort();
        assert.deepEqual(names, [
          'KNOWLEDGE_AGENT_ALLOW_PRIVATE_URLS',
          'KNOWLEDGE_AGENT_CONVERSION_TIMEOUT_MS',
          'KNOWLEDGE_AGENT_TEMPERATURE',
          'KNOWLEDGE_AGENT_TOP_K',
          'LLM_BASE_URL',
          'PORT',
        ]);
        return true;
      },
    );
    assert.throws(
      () => loadConfig({ TEMPERATURE: '-1' }, workingDirectory),
      (error: unknown) => error instanceof ConfigError && /^TEMPERATURE:/.test(error.problems[0] ?? ''),
    );
    assert.throws(() => loadConfig({ KNOWLEDGE_AGENT_TOP_K: '21' }, workingDirectory), ConfigError);
    assert.throws(
      () => loadConfig({ KNOWLEDGE_AGENT_DEFAULT_NAMESPACE: '../..' }, workingDirectory),
      (error: unknown) => error instanceof ConfigError && /^KNOWLEDGE_AGENT_DEFAULT_NAMESPACE:/.test(error.problems[0] ?? ''),
    );
    assert.equal(loadConfig({ KNOWLEDGE_AGENT_DEFAULT_NAMESPACE: 'team docs!' }, workingDirectory).defaultNamespace, 'teamdocs');
    assert.throws(
      () =>
        loadConfig(
          { KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: '5000', KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: '4000', KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS: '-1' },
          workingDirectory,
        ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        // The comparison runs on the two timeouts that parsed, beside the one that did not.
        const names = error.problems.map((problem) => problem.split(':')[0]);
        assert.deepEqual(names, ['KNOWLEDGE_AGENT_IDLE_TIMEOUT_MS', 'KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS']);
        return true;
      },
    );
    assert.throws(
      () => loadConfig({ KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: '5000', KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: '4000' }, workingDirectory),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: must not exceed KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS/.test(error.problems[0] ?? ''),
    );
    assert.throws(
      () => loadConfig({ KNOWLEDGE_AGENT_WRITE_TOKENS: 'no-namespaces' }, workingDirectory),
      (error: unknown) => error instanceof ConfigError && /^KNOWLEDGE_AGENT_WRITE_TOKENS:/.test(error.problems[0] ?? ''),
    );
  });

  it('names every invalid setting in one error: a bad value hides no check that follows', async () => {
    const blocker = join(workingDirectory, 'not-a-folder');
    await writeFile(blocker, 'a file');
    const environment = {
      PORT: 'abc',
      KNOWLEDGE_AGENT_WRITE_TOKENS: 'secret-write-token',
      KNOWLEDGE_AGENT_READ_TOKENS: 'reader-token-for-tests:docs;broken',
      KNOWLEDGE_AGENT_DEFAULT_NAMESPACE: '../..',
      KNOWLEDGE_DIR: join(blocker, 'knowledge'),
      KNOWLEDGE_AGENT_FILE_ROOTS: ':',
      KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS: '5000',
      KNOWLEDGE_AGENT_REQUEST_TIMEOUT_MS: '4000',
    };
    assert.throws(
      () => loadConfig(environment, workingDirectory),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems.map((problem) => problem.split(':')[0]),
          [
            'PORT',
            'KNOWLEDGE_AGENT_WRITE_TOKENS',
            'KNOWLEDGE_AGENT_READ_TOKENS',
            'KNOWLEDGE_AGENT_DEFAULT_NAMESPACE',
            'KNOWLEDGE_DIR',
            'KNOWLEDGE_AGENT_FILE_ROOTS',
            'KNOWLEDGE_AGENT_HEADERS_TIMEOUT_MS',
          ],
        );
        assert.match(error.message, /^PORT: must be a whole number \(got "abc"\)$/m);
        // Token lists hold secrets: their problems name the variable, never the value.
        assert.ok(!error.message.includes('secret-write-token'), error.message);
        return true;
      },
    );
  });

  it('refuses a storage root that cannot be written', async () => {
    const blocker = join(workingDirectory, 'a-file');
    await writeFile(blocker, 'not a directory');
    assert.throws(
      () => loadConfig({ KNOWLEDGE_AGENT_STORAGE_PATH: join(blocker, 'knowledge') }, workingDirectory),
      (error: unknown) => error instanceof ConfigError && /^KNOWLEDGE_AGENT_STORAGE_PATH:/.test(error.problems[0] ?? ''),
    );
  });

  it('refuses a storage root that cannot be created, at once (a recursive mkdir in /proc would retry forever)', () => {
    // In a child process with a time limit: the old code looped synchronously, which no in-process timeout can stop.
    const result = spawnSync(process.execPath, [compiledEntryPoint()], {
      env: { PATH: process.env.PATH, KNOWLEDGE_AGENT_STORAGE_PATH: '/proc/knowledge-agent-test/knowledge' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 1, result.error?.message ?? result.stderr);
    assert.match(result.stderr, /KNOWLEDGE_AGENT_STORAGE_PATH: .*\(ENOENT\)/);
  });

  it('never repeats the value of a secret variable in a problem', () => {
    const secret = 'hunter2 with spaces';
    assert.throws(
      () =>
        loadConfig(
          { KNOWLEDGE_AGENT_METRICS_TOKEN: secret, KNOWLEDGE_AGENT_DATABASE_URL: `mysql://user:${secret}@db/x` },
          workingDirectory,
        ),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.length === 2 &&
        error.problems.every((problem) => !problem.includes('hunter2') && problem.includes('secret')),
    );
  });

  it('refuses a storage root without write permission', {
    skip: process.getuid?.() === 0 ? 'root can write anywhere' : false,
  }, async () => {
    const readOnly = join(workingDirectory, 'read-only');
    await writeFile(join(workingDirectory, 'placeholder'), '');
    await chmod(workingDirectory, 0o555);
    try {
      assert.throws(() => loadConfig({ KNOWLEDGE_AGENT_STORAGE_PATH: readOnly }, workingDirectory), ConfigError);
    } finally {
      await chmod(workingDirectory, 0o755);
    }
  });

  it('stops the real process at start-up with one line naming the variable', () => {
    const result = spawnSync(process.execPath, [compiledEntryPoint()], {
      env: { PATH: process.env.PATH, KNOWLEDGE_AGENT_TOP_K: 'abc', KNOWLEDGE_AGENT_STORAGE_PATH: join(workingDirectory, 'store') },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', /KNOWLEDGE_AGENT_TOP_K/);
  });

  it('stops the real process at start-up on a short token, naming the variable and not the token', () => {
    const result = spawnSync(process.execPath, [compiledEntryPoint()], {
      env: {
        PATH: process.env.PATH,
        KNOWLEDGE_AGENT_WRITE_TOKENS: 'x:docs',
        KNOWLEDGE_AGENT_STORAGE_PATH: join(workingDirectory, 'store'),
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr.trim(), /^[^\n]*KNOWLEDGE_AGENT_WRITE_TOKENS: the token of entry 1 is shorter than 16 characters[^\n]*$/);
    assert.ok(!result.stderr.includes('x:docs'), result.stderr);
  });
});

describe('loadConfig: reranking', () => {
  let workingDirectory: string;
  before(async () => {
    workingDirectory = await mkdtemp(join(tmpdir(), 'knowledge-agent-config-rerank-'));
  });
  after(async () => {
    await rm(workingDirectory, { recursive: true, force: true });
  });
  const load = (environment: Record<string, string>) => loadConfig(environment, workingDirectory);
  const problemsOf = (environment: Record<string, string>): string[] => {
    try {
      load(environment);
    } catch (error) {
      if (error instanceof ConfigError) return [...error.problems];
      throw error;
    }
    assert.fail('the configuration was accepted');
  };

  it('is off without a model, and reaches LLM_BASE_URL with its key, 40 candidates and a 10 s limit by default', () => {
    assert.equal(load({ LLM_BASE_URL: 'http://127.0.0.1:8081/v1' }).rerank, undefined);
    const config = load({
      LLM_BASE_URL: 'http://127.0.0.1:8081/v1',
      LLM_API_KEY: 'sk-one',
      KNOWLEDGE_AGENT_RERANK_MODEL: 'bge-reranker-v2-m3',
    });
    assert.deepEqual(config.rerank, {
      model: 'bge-reranker-v2-m3',
      baseUrl: 'http://127.0.0.1:8081/v1',
      apiKey: 'sk-one',
      timeoutMs: 10_000,
      candidates: 40,
    });
    assert.ok(Object.isFrozen(config.rerank));
  });

  it('takes its own base URL, and sends LLM_API_KEY there only when it is the same server', () => {
    const elsewhere = load({
      LLM_BASE_URL: 'http://127.0.0.1:8080/v1',
      LLM_API_KEY: 'sk-chat',
      KNOWLEDGE_AGENT_RERANK_MODEL: 'bge-reranker-v2-m3',
      KNOWLEDGE_AGENT_RERANK_BASE_URL: 'http://127.0.0.1:8081/v1',
      KNOWLEDGE_AGENT_RERANK_CANDIDATES: '20',
      KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: '30000',
    }).rerank;
    assert.equal(elsewhere?.baseUrl, 'http://127.0.0.1:8081/v1');
    assert.equal(elsewhere?.apiKey, undefined, 'the chat key stays with the chat server');
    assert.equal(elsewhere?.candidates, 20);
    assert.equal(elsewhere?.timeoutMs, 30_000);
    const ownKey = load({
      LLM_API_KEY: 'sk-chat',
      KNOWLEDGE_AGENT_RERANK_MODEL: 'jina-reranker-v2-base-multilingual',
      KNOWLEDGE_AGENT_RERANK_BASE_URL: 'https://api.jina.ai/v1',
      KNOWLEDGE_AGENT_RERANK_API_KEY: 'jina-key',
    }).rerank;
    assert.equal(ownKey?.apiKey, 'jina-key');
    const sameServer = load({
      LLM_BASE_URL: 'http://localhost:8000/v1',
      LLM_API_KEY: 'vllm-key',
      KNOWLEDGE_AGENT_RERANK_MODEL: 'bge-reranker-v2-m3',
      KNOWLEDGE_AGENT_RERANK_BASE_URL: 'http://localhost:8000/v1/',
    }).rerank;
    assert.equal(sameServer?.apiKey, 'vllm-key');
  });

  it('refuses a model without a rerank server, since the official OpenAI API has no rerank endpoint', () => {
    const problems = problemsOf({ LLM_API_KEY: 'sk-x', KNOWLEDGE_AGENT_RERANK_MODEL: 'bge-reranker-v2-m3' });
    assert.deepEqual(problems, [
      'KNOWLEDGE_AGENT_RERANK_MODEL: needs the rerank server: set KNOWLEDGE_AGENT_RERANK_BASE_URL or LLM_BASE_URL (the official OpenAI API has no rerank endpoint)',
    ]);
  });

  it('names each invalid rerank setting, without repeating the key', () => {
    const problems = problemsOf({
      KNOWLEDGE_AGENT_RERANK_MODEL: 'bge-reranker-v2-m3',
      KNOWLEDGE_AGENT_RERANK_BASE_URL: 'ftp://reranker',
      KNOWLEDGE_AGENT_RERANK_API_KEY: ' ',
      KNOWLEDGE_AGENT_RERANK_CANDIDATES: '4',
      KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: 'soon',
    });
    assert.deepEqual(problems, [
      'KNOWLEDGE_AGENT_RERANK_BASE_URL: must be an http(s) URL (got "ftp://reranker")',
      'KNOWLEDGE_AGENT_RERANK_CANDIDATES: must be from 5 to 100 (got "4")',
      'KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: must be a whole number (got "soon")',
    ]);
    assert.deepEqual(problemsOf({ KNOWLEDGE_AGENT_RERANK_CANDIDATES: '101', KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: '50' }), [
      'KNOWLEDGE_AGENT_RERANK_CANDIDATES: must be from 5 to 100 (got "101")',
      'KNOWLEDGE_AGENT_RERANK_TIMEOUT_MS: must be from 100 to 600000 (got "50")',
    ]);
  });
});
