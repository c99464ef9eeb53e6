// Grouping questions by topic: the clustering on hand-made vectors (table), the threshold on paraphrase sets embedded
// by the local model (five phrasings of one missing topic land in one group; unrelated questions do not join it),
// and labels from a group's words.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultGroupingThreshold, groupQuestions } from '../../src/insights/question-groups.js';
import { topicLabel } from '../../src/insights/topic-label.js';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { createLocalEmbeddingModel } from '../../src/providers/local-embedding-model.js';

const vector = (...values: number[]) => Float32Array.from(values);

describe('groupQuestions', () => {
  const cases: { name: string; items: { vector: Float32Array; weight: number }[]; groups: number[][] }[] = [
    { name: 'nothing', items: [], groups: [] },
    {
      name: 'two directions, the heavier group first',
      items: [
        { vector: vector(1, 0), weight: 1 },
        { vector: vector(0, 1), weight: 2 },
        { vector: vector(0.9, 0.1), weight: 2 },
        { vector: vector(0.1, 0.9), weight: 2 },
      ],
      groups: [
        [1, 3],
        [2, 0],
      ].map((group) => group.sort((left, right) => left - right)),
    },
    {
      // 0° and 75° open two groups; 35° joins the first, 45° the second; their centroids end 54° apart (0.59): merged.
      name: 'two groups the greedy pass opened apart are merged once their centroids are close',
      items: [
        { vector: vector(1, 0, 0), weight: 2 },
        { vector: vector(0.259, 0.966, 0), weight: 2 },
        { vector: vector(0.819, 0.574, 0), weight: 1 },
        { vector: vector(0.707, 0.707, 0), weight: 1 },
        { vector: vector(0, 0, 1), weight: 1 },
      ],
      groups: [[0, 1, 2, 3], [4]],
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const groups = groupQuestions(testCase.items).map((group) => [...group].sort((left, right) => left - right));
      assert.deepEqual(new Set(groups.map((group) => group.join())), new Set(testCase.groups.map((group) => group.join())));
    });
  }

  it('orders groups by total weight and members by weight', () => {
    const groups = groupQuestions([
      { vector: vector(1, 0), weight: 1 },
      { vector: vector(0, 1), weight: 5 },
      { vector: vector(0.95, 0.05), weight: 3 },
    ]);
    assert.deepEqual(groups, [[1], [2, 0]]);
  });
});

describe('grouping paraphrases with the local model', () => {
  let model: EmbeddingModel;
  const singleSignOn = [
    'How do I set up single sign-on with Okta?',
    'Is SAML SSO supported?',
    'can I log in with my company Okta account',
    'configure SSO login for my team',
    'How to enable single sign on (SAML) for our organisation?',
  ];
  const backups = [
    'how do I back up the database',
    'is there a way to restore from a backup?',
    'database backups and restore',
    'Backing up my data before an upgrade',
    'how to take a snapshot of the database for backup',
  ];
  const unrelated = [
    'How do I rotate an API token?',
    'What is the default port of the server?',
    'How to delete a namespace?',
    'Can I export my data to CSV?',
    'Which Python versions are supported?',
    'How do I install on Windows?',
    'What are the rate limits?',
    'How do I reset my password?',
    'Does it support webhooks?',
    'How to upgrade to version 3?',
  ];

  before(async () => {
    model = await createLocalEmbeddingModel();
  });

  after(async () => {
    await model.close?.();
  });

  async function grouped(questions: readonly string[], threshold = defaultGroupingThreshold): Promise<string[][]> {
    const vectors = await model.embed(questions);
    return groupQuestions(
      vectors.map((embedded) => ({ vector: embedded, weight: 1 })),
      threshold,
    ).map((group) => group.map((index) => questions[index] as string));
  }

  for (const [topic, phrasings] of [
    ['single sign-on', singleSignOn],
    ['backups', backups],
  ] as const) {
    it(`puts five phrasings of ${topic} in one group, and no unrelated question with them`, async () => {
      const groups = await grouped([...phrasings, ...unrelated]);
      const group = groups.find((members) => members.includes(phrasings[0] as string));
      assert.deepEqual(new Set(group), new Set(phrasings));
    });
  }

  it('groups three terse phrasings that share few words', async () => {
    const terse = ['configure SSO login for my team', 'How do I set up single sign-on with Okta?', 'Is SAML SSO supported?'];
    assert.deepEqual(
      (await grouped([...terse, ...unrelated])).filter((members) => members.length > 1).map((members) => new Set(members)),
      [new Set(terse)],
    );
  });

  it('keeps two missing topics apart, and every unrelated question alone', async () => {
    const groups = await grouped([...unrelated, ...singleSignOn, ...backups]);
    assert.equal(groups.length, 2 + unrelated.length);
    assert.deepEqual(
      groups.slice(0, 2).map((members) => new Set(members)),
      [new Set(singleSignOn), new Set(backups)].sort((left) => (groups[0]?.includes([...left][0] as string) ? -1 : 1)),
    );
  });

  it('the threshold has a margin: from 0.4 to 0.5 the topics form and keep the unrelated questions out', async () => {
    for (const threshold of [0.4, 0.5]) {
      const groups = await grouped([...singleSignOn, ...backups, ...unrelated], threshold);
      assert.ok(groups.some((members) => new Set(members).size === 5 && members.every((question) => singleSignOn.includes(question))));
      assert.ok(groups.every((members) => !members.some((question) => unrelated.includes(question)) || members.length === 1));
    }
  });
});

describe('topicLabel', () => {
  it("names a group by its questions' most used words, leaving question words out", () => {
    assert.equal(
      topicLabel([
        { text: 'How do I set up single sign-on with Okta?', count: 3 },
        { text: 'Is Okta single sign-on supported?', count: 1 },
        { text: 'configure SSO login with Okta', count: 1 },
      ]),
      'okta sign-on single',
    );
  });
});
