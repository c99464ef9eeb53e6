// Generated test documents for durability tests: each carries a unique searchable marker word; a seeded random source.

/** mulberry32: a small deterministic generator, so a failing run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

// Digits spelled with consonants the Porter stemmer never strips, framed by `qz` … `vq`, so markers stay distinct terms.
const digitLetters = 'bcdfghjkmn';

/** A word that occurs in no other document, e.g. `qzcbwdvq`; `parts` are small non-negative integers. */
export function markerWord(...parts: number[]): string {
  return `qz${parts.map((part) => [...String(part)].map((digit) => digitLetters[Number(digit)]).join('')).join('w')}vq`;
}

const filler = [
  'The replication log is flushed before the acknowledgement is sent to the client.',
  'Operators rotate credentials on a fixed schedule and record every rotation in the audit trail.',
  'A rolling deployment replaces one instance at a time while the load balancer drains connections.',
  'Backups are verified by restoring them into a scratch environment every night.',
  'Alert thresholds are tuned so that a page always means a person has to act.',
  'Capacity planning uses the ninety-fifth percentile of weekly traffic, not the average.',
];

/** A Markdown document of `sections` sections (about 900 characters each, so one chunk per section) mentioning `marker`. */
export function markerDocument(marker: string, sections: number): string {
  const parts = [`# Runbook ${marker}`, '', `This runbook is identified by the marker ${marker}.`];
  for (let section = 1; section <= sections; section++) {
    parts.push('', `## Part ${section}`, '');
    const sentences: string[] = [];
    for (let sentence = 0; sentence < 8; sentence++) sentences.push(filler[(section + sentence) % filler.length] as string);
    sentences.push(`Section ${section} of ${marker} ends here.`);
    parts.push(sentences.join(' '));
  }
  return `${parts.join('\n')}\n`;
}
