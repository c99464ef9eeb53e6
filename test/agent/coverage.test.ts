// The "not in these docs" decision: the relevance floor over a search's evidence, the model's own "not covered"
// answer, and how the closest pages are offered instead of cited.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestPages, notCoveredSentence, passesRelevanceFloor, relevanceFloor, saysNotCovered } from '../../src/agent/coverage.js';
import { noAnswer } from '../../src/providers/extractive-chat-model.js';
import { localEmbeddingModelId } from '../../src/providers/local-embedding-model.js';
import type { Snippet } from '../../src/search/snippet.js';

const page = (title: string, origin: string): Snippet => ({
  number: 1,
  chunkId: `${title}#0`,
  title,
  file: `${title.toLowerCase()}.md`,
  headingPath: [title],
  text: '',
  score: 1,
  origin,
  asOf: '2026-01-01T00:00:00.000Z',
  preview: '',
});

describe('relevance floor', () => {
  const fitted = (similarityMargin: number, termCoverage: number) => ({
    termCoverage,
    similarity: 0.6,
    similarityMargin,
    embeddingModel: localEmbeddingModelId,
  });

  it('weighs the similarity margin and the term coverage together for the model it was fitted on', () => {
    const { combined, termWeight } = relevanceFloor;
    assert.equal(passesRelevanceFloor(fitted(combined, 0)), true);
    assert.equal(passesRelevanceFloor(fitted(combined - 0.01, 0)), false);
    assert.equal(passesRelevanceFloor(fitted(combined - 0.05, 0.05 / termWeight)), true);
  });

  it('refuses a question no hit comes near, however much the best hit stands out', () => {
    const { combined, similarity } = relevanceFloor;
    const standsOut = { ...fitted(combined + 0.2, 1), similarity };
    assert.equal(passesRelevanceFloor(standsOut), true);
    assert.equal(passesRelevanceFloor({ ...standsOut, similarity: similarity - 0.01 }), false);
  });

  it('refuses a question that names an option the docs never mention, whatever else matches', () => {
    const { combined } = relevanceFloor;
    assert.equal(passesRelevanceFloor({ ...fitted(combined + 0.5, 1), unknownOptions: ['--deep-verify'] }), false);
    assert.equal(passesRelevanceFloor({ termCoverage: 1, unknownOptions: ['--deep-verify'] }), false);
    assert.equal(passesRelevanceFloor({ ...fitted(combined + 0.5, 1), unknownOptions: [] }), true);
    assert.equal(
      notCoveredSentence('uv', { unknownOptions: ['--deep-verify', '--older-than'] }),
      'The "uv" documentation never mentions `--deep-verify`, `--older-than`: none of the passages I found answers this.',
    );
  });

  it('asks more of the evidence when the question names something the docs never mention', () => {
    const floor = { ...relevanceFloor, unknownNamePenalty: 0.2 };
    const { combined } = floor;
    const named = (margin: number) => ({ ...fitted(margin, 0), unknownNames: ['Zappa'] });
    assert.equal(passesRelevanceFloor(named(combined + 0.21), floor), true);
    assert.equal(passesRelevanceFloor(named(combined + 0.19), floor), false);
    assert.equal(passesRelevanceFloor({ ...named(combined + 0.19), unknownNames: [] }, floor), true);
    assert.equal(
      notCoveredSentence('fastapi', { unknownOptions: ['--tunnel'], unknownNames: ['Zappa'] }),
      'The "fastapi" documentation never mentions `--tunnel`, Zappa: none of the passages I found answers this.',
    );
    assert.equal(
      notCoveredSentence('vue', { unknownNames: ['v-lazy', 'onBeforeRender', 'UV_NO_SYNC', 'ttl', 'PyInstaller', 'JWT', 'gRPC', 'macOS'] }),
      'The "vue" documentation never mentions `v-lazy`, `onBeforeRender`, `UV_NO_SYNC`, `ttl`, PyInstaller, JWT, gRPC, macOS: none of the passages I found answers this.',
    );
  });

  it('uses the term coverage alone without embeddings, or with a model whose similarities were not fitted', () => {
    const { lexical } = relevanceFloor;
    assert.equal(passesRelevanceFloor({ termCoverage: lexical }), true);
    assert.equal(passesRelevanceFloor({ termCoverage: lexical - 0.01 }), false);
    const otherModel = { termCoverage: lexical - 0.01, similarity: 0.99, similarityMargin: 0.9, embeddingModel: 'text-embedding-3-small' };
    assert.equal(passesRelevanceFloor(otherModel), false);
    assert.equal(passesRelevanceFloor({ ...otherModel, termCoverage: lexical }), true);
  });
});

describe("the model's own 'not covered'", () => {
  it('is an opening that says the docs do not answer, with nothing cited', () => {
    assert.equal(saysNotCovered(noAnswer, 0), true);
    assert.equal(saysNotCovered('The documentation does not cover this: it never mentions parental leave.', 0), true);
    assert.equal(saysNotCovered("The docs don't mention a JVM heap setting.", 0), true);
    assert.equal(saysNotCovered('I could not find anything about heap sizes in these snippets.', 0), true);
    assert.equal(saysNotCovered('There is no information on that in the snippets.', 0), true);
  });

  it('is not an answer that cites the docs, or one that only later says what is missing', () => {
    assert.equal(saysNotCovered('The docs do not mention carry-over, but you get twenty-five days [1].', 1), false);
    assert.equal(saysNotCovered('Use `max_connections`. The handbook does not cover other limits.', 0), false);
    assert.equal(saysNotCovered('Set `max_connections` in config.yaml.', 0), false);
  });
});

describe('closest pages', () => {
  it('names each page once by its title, linked to its URL when it came from the web, at most three', () => {
    const snippets = [
      page('Deploy', 'https://docs.example.com/deploy'),
      page('Deploy', 'https://docs.example.com/deploy'),
      page('Notes', 'notes.md'),
      page('Tokens', 'tokens.md'),
      page('Backups', 'backups.md'),
    ];
    assert.equal(
      closestPages(snippets),
      'The closest pages, in case they help:\n- [Deploy](https://docs.example.com/deploy)\n- Notes\n- Tokens',
    );
    assert.equal(closestPages([]), '');
  });
});
