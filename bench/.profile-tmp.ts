import { readFileSync } from 'node:fs';
import { LexicalIndex } from '../src/search/lexical-index.js';
const passages = readFileSync('/work/shared/data/msmarco-trecdl-5k/corpus.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l).text as string);
const index = new LexicalIndex();
for (let i = 0; i < 100000; i++) index.add('k' + i, { title: passages[(i * 13) % 5000]!.slice(0, 30), headings: '', body: passages[i % 5000]! + ' ' + passages[(i * 7) % 5000]! + ' ' + passages[(i * 11) % 5000]! });
const x = index as any;
console.log('terms', x.termText.length, 'postingsEnd', x.postingsEnd, 'postings cap', x.postings.length, 'forward', x.slotTermOffsets[x.slotCount], 'forward cap', x.slotTerms.length);
