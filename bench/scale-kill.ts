// kill -9 during a large ingest: builds a namespace through IngestService in 100-document calls (bench/scale-child.ts
// `build`, the scale benchmark's corpus and hash embeddings), SIGKILLs the process at a random moment once it has
// acknowledged `--kill-at` chunks, then reopens the storage root in a fresh process as a restarted service does
// (`verify`) and checks that every acknowledged document is there, that the index loads and answers, and that it agrees
// with the Markdown files in the folder. Prints the figures and PASS or MISS; exits 1 on a loss.
// Run: npm run bench:scale-kill   or   npx tsx bench/scale-kill.ts [--kill-at 900000] [--target 1000000] [--keep]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { seededRandom } from '../test/support/durability-documents.js';
import type { Acknowledgement, VerifyResult } from './scale-child.js';
import { runScaleChild, spawnScaleChild } from './scale-child-process.js';

const namespace = 'scale';

const { values: flags } = parseArgs({
  options: {
    'kill-at': { type: 'string', default: '900000' },
    target: { type: 'string', default: '1000000' },
    keep: { type: 'boolean', default: false },
  },
});
const wholeNumber = (name: string, text: string | undefined): number => {
  const value = Number(text?.replace(/_/g, ''));
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number (got ${JSON.stringify(text)})`);
  return value;
};
const killAt = wholeNumber('kill-at', flags['kill-at']);
const target = wholeNumber('target', flags.target);
if (killAt >= target) throw new Error('--kill-at must be below --target: the build is killed before it ends');

/**
 * Runs the build and kills it with SIGKILL a random 0-500 ms after it acknowledged `killAt` chunks (inside the next
 * ingest call's commits, most likely). Returns the hashes of every document it acknowledged before it died.
 */
async function buildAndKill(root: string): Promise<{ hashes: string[]; chunks: number; killedAfterMs: number }> {
  const child = spawnScaleChild('build', { root, namespace, chunks: target, batch: 100, acknowledge: true });
  const hashes: string[] = [];
  let chunks = 0;
  const killedAfterMs = Math.floor(seededRandom(killAt)() * 500);
  let killing = false;
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  for await (const line of createInterface({ input: child.stdout })) {
    if (!line.startsWith('{"acknowledged"')) continue;
    let acknowledgement: Acknowledgement;
    try {
      acknowledgement = JSON.parse(line) as Acknowledgement;
    } catch {
      // A line the kill cut short was never acknowledged.
      continue;
    }
    hashes.push(...acknowledgement.acknowledged);
    chunks = acknowledgement.chunks;
    if (!killing && chunks >= killAt) {
      killing = true;
      setTimeout(() => child.kill('SIGKILL'), killedAfterMs);
    }
  }
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the build ended (${signal ?? 'exit'}) before it was killed: raise --target`);
  return { hashes, chunks, killedAfterMs };
}

const root = await mkdtemp(join(tmpdir(), 'knowledge-agent-scale-kill-'));
console.error(`storage root ${root}; building towards ${target.toLocaleString('en')} chunks, kill -9 past ${killAt.toLocaleString('en')}`);
try {
  const started = performance.now();
  const killed = await buildAndKill(root);
  const buildSeconds = (performance.now() - started) / 1000;
  const acknowledgedFile = join(root, 'acknowledged.txt');
  await writeFile(acknowledgedFile, `${killed.hashes.join('\n')}\n`);
  const reopened = await runScaleChild<VerifyResult>('verify', { root, namespace, acknowledgedFile });
  const whole = (value: number) => Math.round(value).toLocaleString('en');
  console.log(
    `killed ${killed.killedAfterMs} ms after ${whole(killed.chunks)} chunks (${whole(killed.hashes.length)} documents) were acknowledged, ${buildSeconds.toFixed(0)} s into the build (load ${loadavg()[0]?.toFixed(1)})`,
  );
  console.log(
    `reopened in ${reopened.loadSeconds.toFixed(1)} s (peak RSS ${whole(reopened.memory.peakRss)} MB): ${whole(reopened.documents)} documents, ${whole(reopened.chunks)} chunks, ${whole(reopened.markdownFiles)} Markdown files; lexical ${reopened.lexicalHits} hits, vector ${reopened.vectorHits}`,
  );
  const checks = [
    { target: 'no acknowledged document lost', pass: reopened.lost === 0, measured: `${reopened.lost} of ${reopened.acknowledged} lost` },
    {
      target: 'the index agrees with the folder',
      pass: reopened.documents === reopened.markdownFiles,
      measured: `${whole(reopened.documents)} documents, ${whole(reopened.markdownFiles)} files`,
    },
    {
      target: 'the reopened index answers',
      pass: reopened.lexicalHits > 0 && reopened.vectorHits > 0,
      measured: 'lexical and vector hits',
    },
  ];
  for (const check of checks) console.log(`${check.pass ? 'PASS' : 'MISS'}  ${check.target}: ${check.measured}`);
  process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
} finally {
  if (flags.keep) console.error(`kept ${root}`);
  else await rm(root, { recursive: true, force: true });
}
