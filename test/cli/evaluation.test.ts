// The evaluation behind `knowledge-agent eval`: reading a question file, matching results to judged pages, grading.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CliError } from '../../src/cli/cli-error.js';
import { gradeAnswer, matchesPage, parseQuestionFile, summarize, type QuestionResult } from '../../src/cli/evaluation.js';

describe('question files', () => {
  it('reads one question per line, skipping blank and # lines, and numbers questions without an id', () => {
    const questions = parseQuestionFile(
      [
        '# the handbook',
        '{"id":"q1","question":"How long are backups kept?","pages":{"ops/backups.md":2},"key_facts":["thirty days"],"real_source":"https://example.com/1"}',
        '',
        '{"question":"How do I set the JVM heap?","out_of_scope":true}',
        '{"question":"and for restores?","earlier_questions":["How long are backups kept?"],"key_facts":["restore"]}',
      ].join('\n'),
      'handbook.jsonl',
    );
    assert.deepEqual(
      questions.map((question) => question.id),
      ['q1', 'line-4', 'line-5'],
    );
    assert.equal(questions[0]?.['real_source'], 'https://example.com/1');
  });

  it('names the line and the field of a question that is not valid', () => {
    const invalid = (line: string) => {
      try {
        parseQuestionFile(line, 'q.jsonl');
      } catch (error) {
        assert.ok(error instanceof CliError);
        return error.message;
      }
      return assert.fail('accepted');
    };
    assert.match(invalid('{"question":'), /^q\.jsonl:1 is not a JSON object/);
    assert.match(invalid('{"question":"  "}'), /^q\.jsonl:1: "question" must not be empty/);
    assert.match(invalid('{"question":"x"}'), /give pages \(with a grade above 0\), key_facts, or "out_of_scope": true/);
    assert.match(invalid('{"question":"x","out_of_scope":true,"key_facts":["y"]}'), /an out_of_scope question has no pages or key_facts/);
    assert.match(invalid('{"question":"x","pages":{"a.md":7}}'), /"pages\.a\.md"/);
    assert.match(
      invalid('{"id":"a","question":"x","key_facts":["y"]}\n{"id":"a","question":"z","key_facts":["y"]}'),
      /q\.jsonl:2: the id "a" is used twice/,
    );
    assert.match(invalid('\n# nothing\n'), /holds no questions/);
  });
});

describe('matching results to judged pages', () => {
  it('matches a page by the end of its origin, as a path or a URL, with or without its extension', () => {
    const at = (origin: string, headings: string[] = []) => ({ origin, headings });
    assert.equal(matchesPage(at('/srv/docs/guide/install.md'), 'guide/install.md'), true);
    assert.equal(matchesPage(at('https://docs.example.com/guide/install'), 'guide/install.md'), true);
    assert.equal(matchesPage(at('https://docs.example.com/guide/'), 'guide/index.md'), true);
    assert.equal(matchesPage(at('/srv/docs/other-guide/install.md'), 'guide/install.md'), false);
    assert.equal(matchesPage(at('/srv/docs/reinstall.md'), 'install.md'), false);
  });

  it('matches a section key by its page and one of the passage headings', () => {
    const passage = { origin: '/manuals/bash.pdf', headings: ['Bash Reference Manual', '3.5.3 Shell Parameter Expansion'] };
    assert.equal(matchesPage(passage, 'bash.pdf#3.5.3 Shell Parameter Expansion'), true);
    assert.equal(matchesPage(passage, 'bash.pdf#3.5.4 Command Substitution'), false);
  });
});

describe('grading an answer', () => {
  const question = {
    id: 'q',
    question: 'How long are backups kept?',
    pages: { 'ops/backups.md': 2, 'ops/restore.md': 1 },
    key_facts: ['thirty days', 'nightly'],
  };
  const cited = (origin: string) => [{ origin, headings: [] }];

  it('is good when it cites an answering page and holds half of the key facts', () => {
    assert.equal(
      gradeAnswer(question, { text: 'Backups are kept for thirty days [1].', covered: true, cited: cited('/d/ops/backups.md') }),
      'good',
    );
  });

  it('is partial when it cites only a relevant page, or misses the facts', () => {
    assert.equal(gradeAnswer(question, { text: 'Kept for thirty days [1].', covered: true, cited: cited('/d/ops/restore.md') }), 'partial');
    assert.equal(gradeAnswer(question, { text: 'See the backups page [1].', covered: true, cited: cited('/d/ops/backups.md') }), 'partial');
  });

  it('is wrong when it cites no judged page and holds no fact, and refused when it says the docs do not cover it', () => {
    assert.equal(gradeAnswer(question, { text: 'Tokens rotate [1].', covered: true, cited: cited('/d/tokens.md') }), 'wrong');
    assert.equal(gradeAnswer(question, { text: 'Not covered.', covered: false, cited: [] }), 'refused');
  });

  it('sums up retrieval, answers and abstention, out-of-scope questions apart', () => {
    const result = (
      id: string,
      outOfScope: boolean,
      grade: QuestionResult['grade'],
      covered: boolean,
      ndcg10?: number,
    ): QuestionResult => ({
      id,
      question: id,
      outOfScope,
      retrieved: [],
      ...(ndcg10 === undefined ? {} : { ndcg10, recall10: ndcg10, reciprocalRank: ndcg10 }),
      grade,
      covered,
      factsFound: 0,
      citedPages: [],
      answer: '',
    });
    const summary = summarize('docs', 'hybrid', [
      result('a', false, 'good', true, 1),
      result('b', false, 'refused', false, 0.5),
      result('c', true, 'refused', false),
      result('d', true, 'wrong', true),
    ]);
    assert.deepEqual(summary.retrieval, { questions: 2, ndcg10: 0.75, recall10: 0.75, mrr10: 0.75 });
    assert.deepEqual(summary.answers, { questions: 2, good: 1, partial: 0, wrong: 0, refused: 1 });
    assert.deepEqual(summary.abstention, { outOfScope: 2, outOfScopeRefused: 1, inScope: 2, inScopeRefused: 1 });
  });
});
