// The evidence of how well a search's hits match its question: rarity-weighted term coverage and the similarity margin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relevanceEvidence, type RelevanceContext } from '../../src/search/relevance.js';
import type { RetrievedChunk } from '../../src/search/retrieved-chunk.js';
import type { StoredDocument } from '../../src/store/stored-document.js';
import { tokenize } from '../../src/indexes/tokenize.js';

/** The terms of each chunk `hit` made, as a namespace's index holds them. */
const chunkTerms = new Map<string, ReadonlySet<string>>();

function hit(title: string, text: string, id = `${title}:0`): RetrievedChunk {
  const document = {
    file: `${title}.md`,
    title,
    origin: 'text',
    hash: 'sha256:0',
    ingestedAt: '',
    fileSize: 0,
    fileModifiedMs: 0,
    chunks: [],
  };
  chunkTerms.set(id, new Set(tokenize(`${title}\n${title}\n${text}`)));
  return {
    chunk: { id, file: document.file, headingPath: [title], text },
    document: document as unknown as StoredDocument,
    score: 1,
    asOf: '',
  };
}

/** A namespace of 100 chunks where "server" is in 60 of them and "timeout" in 2; other words in none. */
const namespace = (vectors: Record<string, Float32Array> = {}): RelevanceContext => ({
  chunkCount: 100,
  chunksWithTerm: (term) => ({ server: 60, timeout: 2, configur: 10 })[term] ?? 0,
  termsStartingWith: () => 0,
  termsHeld: (id, terms) => terms.map((term) => chunkTerms.get(id)?.has(term) === true),
  vectorOf: (id) => vectors[id],
});

/** The evidence for `question` in a namespace where only the terms `known` occur (in 3 chunks each). */
const evidenceWhereOnly = (known: readonly string[], question: string) =>
  relevanceEvidence(question, [hit('Servers', 'the server')], {
    ...namespace(),
    chunksWithTerm: (term) => (known.includes(term) ? 3 : 0),
    termsStartingWith: (prefix, atMost) => Math.min(atMost, known.filter((term) => term.startsWith(prefix)).length),
  });

describe('relevanceEvidence', () => {
  it("weighs each question word by its rarity in the namespace, and takes the best hit's share", () => {
    const question = 'configure the server timeout';
    const common = relevanceEvidence(question, [hit('Servers', 'Start the server with a port.')], namespace());
    const rare = relevanceEvidence(
      question,
      [hit('Servers', 'Start the server.'), hit('Timeouts', 'The timeout is 30 seconds.')],
      namespace(),
    );
    assert.ok(rare.termCoverage > common.termCoverage, `${rare.termCoverage} > ${common.termCoverage}`);
    // A word the namespace never uses ("the" aside) keeps the coverage low however well the rest matches.
    const unknown = relevanceEvidence('configure the server grpc timeout', [hit('All', 'configure the server timeout')], namespace());
    assert.ok(unknown.termCoverage < 0.75, String(unknown.termCoverage));
    assert.equal(relevanceEvidence(question, [], namespace()).termCoverage, 0);
    assert.equal(common.similarity, undefined);
  });

  it('names the command-line options of the question that no chunk of the namespace holds', () => {
    const asked = (question: string) => evidenceWhereOnly(['timeout', 'dry-run'], question).unknownOptions;
    assert.deepEqual(asked('what does `server --timeout 5 --deep-verify --dry-run` check?'), ['--deep-verify']);
    assert.deepEqual(asked('is --max-requests=1000 the same as --max-requests 1000?'), ['--max-requests']);
    // Options the docs name, dashes in prose, and no options at all: nothing to report.
    assert.equal(asked('what does --timeout do with --dry-run?'), undefined);
    assert.equal(asked('it failed--again--and again, even with ---'), undefined);
    assert.equal(asked('configure the server timeout'), undefined);
  });

  it("names the keyword options set to a literal that no chunk holds, unless they are passed to the asker's own code", () => {
    const asked = (question: string) => evidenceWhereOnly(['timeout', 'server', 'field'], question).unknownOptions;
    assert.deepEqual(asked('What does Field(encrypt=True, timeout=5) do?'), ['encrypt']);
    assert.deepEqual(asked('with ttl = 300 and mode="strict" in the config'), ['ttl', 'mode']);
    assert.deepEqual(asked('server(retries=3) --deep-verify'), ['--deep-verify', 'retries']);
    // The asker's own class, a shell variable set from another, a URL's query and an environment variable are not options.
    assert.equal(asked('Student(nickname="Al") fails to validate'), undefined);
    assert.equal(asked('str=$1; echo ${str:0:1}'), undefined);
    assert.equal(asked('GET /items?page=2&size=10 is slow'), undefined);
    assert.equal(asked('DEBUG=1 server start'), undefined);
    assert.equal(asked('is x == 3 the same as x = y?'), undefined);
  });

  it("names the products, formats and acronyms of the question's prose that no chunk holds, not what it quotes", () => {
    const asked = (question: string) => evidenceWhereOnly(['server', 'docker', 'json'], question).unknownNames;
    assert.deepEqual(asked('Is the server compatible with Zappa? I deploy with Docker and Zappa to AWS.'), ['Zappa', 'AWS']);
    assert.deepEqual(asked('can the server export Avro schemas instead of JSON?'), ['Avro']);
    assert.deepEqual(asked('can the server be bundled into one .exe like PyInstaller does?'), ['PyInstaller']);
    assert.deepEqual(asked('can the server speak gRPC, and does it run on macOS and iOS?'), ['gRPC', 'macOS', 'iOS']);
    assert.equal(asked('the server calls toJSON() and reads user.firstName'), undefined);
    assert.equal(asked('the server raises ModuleNotFoundError when createApp(MainApp) runs'), undefined);
    // Sentence openings, identifiers, paths, and what the asker quotes (an error message, code) are not names.
    assert.equal(asked('Where does the server log? Nothing in README.md or Content-Type says.'), undefined);
    assert.equal(asked('I get \'Unknown Option\' from `Server(Zappa=1)` and "Bad Gateway" from my Gateway server'), undefined);
    assert.equal(asked("the server says 'Cannot start.' Whats wrong?"), undefined);
  });

  it("names an option the question calls by its kind that no chunk holds, not the asker's own", () => {
    const asked = (question: string) => evidenceWhereOnly(['server', 'timeout', 'prop'], question).unknownNames;
    assert.deepEqual(asked("What's the syntax for the ttl prop on the server?"), ['ttl']);
    assert.deepEqual(asked('does the server take a retries setting or an autosave flag?'), ['retries', 'autosave']);
    assert.deepEqual(asked('what does the `server doctor` command check?'), ['doctor']);
    assert.equal(asked('what does the timeout option of the server do?'), undefined);
    assert.equal(asked('my ttl prop is ignored by the server'), undefined);
  });

  it('names an identifier no chunk holds when the namespace names several others of its family, quoted or not', () => {
    const known = ['server', 'uv_cache_dir', 'uv_index_url', 'uv_python', 'v-model', 'v-if', 'v-for', 'onbeforemount', 'onbeforeupdate'];
    const asked = (question: string) => evidenceWhereOnly([...known, 'onbeforeunmount', 'my_settings'], question).unknownNames;
    assert.deepEqual(asked('What is the default of `UV_DOWNLOAD_RETRIES` on the server?'), ['UV_DOWNLOAD_RETRIES']);
    assert.deepEqual(asked('is there a v-lazy directive for the server images?'), ['v-lazy']);
    assert.deepEqual(asked('when does onBeforeRender run on the server?'), ['onBeforeRender']);
    // A snake_case name needs no family: an API's names are of that shape.
    assert.deepEqual(asked('does the server have a ping_interval option?'), ['ping_interval']);
    assert.deepEqual(asked('how do I call server.validate_file() or read ~/.server_rc?'), ['validate_file']);
    // So does a camelCase name, but not as a property of the asker's object or a function called in their code.
    assert.deepEqual(asked('how do I add a global beforeEach guard, or configure splitChunks for the server?'), [
      'beforeEach',
      'splitChunks',
    ]);
    assert.deepEqual(asked('how do I use storeToRefs on the server, not fetchUserData()?'), ['storeToRefs']);
    assert.equal(asked('the server reads user.firstName and props.userName, then calls fetchData()'), undefined);
    assert.equal(asked('does the server read my_settings?'), undefined);
    // Of another shape, a family the namespace hardly names is the asker's own; so is a plural of a member, a path, an English word.
    assert.equal(asked('the server reads MY_SERVER_PORT and MY_SERVER_HOST'), undefined);
    assert.equal(asked('can one server component have two v-models?'), undefined);
    assert.equal(asked('the server keeps its environments in ~/uv-venvs and ./v-cache'), undefined);
    assert.equal(asked('the server does not re-assign it'), undefined);
    // An option set to a literal is named once, as an option.
    const option = evidenceWhereOnly([...known, 'exclude_none', 'exclude_unset', 'exclude_defaults'], 'server(exclude_empty=True)');
    assert.deepEqual([option.unknownOptions, option.unknownNames], [['exclude_empty'], undefined]);
  });

  it("measures the best hit's similarity against the mean of the nearest chunks, naming the model", () => {
    const vector = (x: number, y: number) => Float32Array.from([x, y]);
    const evidence = relevanceEvidence(
      'server timeout',
      [hit('A', 'server', 'a'), hit('B', 'timeout', 'b')],
      namespace({ a: vector(1, 0), b: vector(0, 1) }),
      {
        vector: vector(1, 0),
        model: 'test-model',
        nearest: [
          { key: 'a', score: 1 },
          { key: 'x', score: 0.5 },
          { key: 'y', score: 0 },
        ],
      },
    );
    assert.equal(evidence.similarity, 1);
    assert.ok(Math.abs((evidence.similarityMargin ?? 0) - 0.5) < 1e-6);
    assert.equal(evidence.embeddingModel, 'test-model');
  });
});
