// SIGKILL the real service (a child process) at random moments while ingests are being written, many times over one
// storage root: the stored index (snapshot + journal) always loads, agrees with the .md files after start-up, and nothing acknowledged is lost.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { rm } from 'node:fs/promises';
import { contentHash } from '../../src/store/content-hash.js';
import type { NamespaceIndex } from '../../src/store/namespace-index.js';
import { startChildService, type ChildService } from '../support/child-service.js';
import { markerDocument, markerWord, seededRandom } from '../support/durability-documents.js';
import { ingestTexts, searchDocs, type IngestRoute, type TextSource } from '../support/ingest-client.js';
import { duplicateHashes, indexedFiles, readNamespaceFolder, readStoredIndex, type NamespaceFolder } from '../support/namespace-folder.js';
import { startProviderDouble, type ProviderDouble } from '../support/provider-double.js';
import { makeStorageRoot } from '../support/service.js';

const seed = 0x5eed2024;
const killCycles = 20;
const workersPerCycle = 4;
const namespace = 'crashy';
/** Kill this long after the ingests start (milliseconds). */
const killDelay = { min: 5, max: 300 };

interface Acknowledged {
  readonly file: string;
  readonly hash: string;
  readonly cycle: number;
}

interface CycleStatistics {
  acknowledged: number;
  interrupted: number;
  /** Found right after the kill: a write was cut short between its steps. */
  temporaryFilesAfterKill: number;
  unindexedFilesAfterKill: number;
}

/** Adds the service's own error log lines to a failure, which usually explain a 500. */
function withServiceErrors(error: unknown, cycle: number, service: ChildService): unknown {
  const logged = service.output.filter((line) => /"level":(50|60)/.test(line) || !line.startsWith('{'));
  if (!(error instanceof Error) || logged.length === 0) return error;
  error.message += `\n(after restart ${cycle}) the service logged:\n${logged.join('\n')}`;
  return error;
}

describe('SIGKILL during ingests, restarted on the same storage root', () => {
  let provider: ProviderDouble;
  let storageRoot: string;
  let child: ChildService | undefined;

  before(async () => {
    // 256 dimensions, not the double's 64: at 64 the hashed vectors of runbooks whose markers differ by one letter
    // collide often enough that a marker's nearest chunk is another runbook's for about 2% of markers (counted over
    // 1,400 of them; none at 256), which failed the final embedding search now and then.
    provider = await startProviderDouble({ embeddingDimensions: 256 });
    storageRoot = await makeStorageRoot();
  });

  after(async () => {
    await child?.kill();
    await provider?.close();
    await rm(storageRoot, { recursive: true, force: true });
  });

  it(`loses nothing acknowledged and never leaves a broken index (${killCycles} kills)`, { timeout: 300_000 }, async (context) => {
    // Kill delays come from their own stream, so they repeat exactly for a seed; the workers' choices depend on timing.
    const killRandom = seededRandom(seed);
    const random = seededRandom(seed + 1);
    const directory = join(storageRoot, namespace);
    const textByMarker = new Map<string, string>();
    const sentMarkers: string[] = [];
    /** Content acknowledged (saved, or skipped as already stored), by marker. */
    const acknowledged = new Map<string, Acknowledged>();
    const violations: string[] = [];
    const statistics: CycleStatistics[] = [];
    /** Restarts after which the stored index did not yet agree with the folder when /health answered (before any namespace request). */
    const notReconciledAtStartUp: string[] = [];
    let markerCounter = 0;

    const newSource = (cycle: number): { marker: string; source: TextSource } => {
      const marker = markerWord(cycle, markerCounter++);
      const text = markerDocument(marker, 3 + Math.floor(random() * 6));
      textByMarker.set(marker, text);
      return { marker, source: { text, title: `Kill ${cycle} ${markerCounter}` } };
    };
    /** A text sent before (in this cycle or an earlier one, acknowledged or cut off by a kill). */
    const repeatedSource = (cycle: number): { marker: string; source: TextSource } => {
      const marker = sentMarkers[Math.floor(random() * sentMarkers.length)] as string;
      return { marker, source: { text: textByMarker.get(marker) as string, title: `Again ${cycle} ${markerCounter++}` } };
    };

    async function worker(service: ChildService, cycle: number, stopped: () => boolean, tally: CycleStatistics): Promise<void> {
      while (!stopped()) {
        const route: IngestRoute = random() < 0.5 ? '/tools/ingest' : '/api/tools/ingest';
        const picked = Array.from({ length: random() < 0.3 ? 2 : 1 }, () =>
          sentMarkers.length > 0 && random() < 0.2 ? repeatedSource(cycle) : newSource(cycle),
        );
        const markers = picked.map((entry) => entry.marker);
        // Two sources of one request with the same text are legal, but keep the bookkeeping simple.
        if (new Set(markers).size !== markers.length) continue;
        sentMarkers.push(...markers.filter((marker) => !sentMarkers.includes(marker)));
        const expectedFiles = markers.map((marker) => acknowledged.get(marker)?.file);
        let results;
        try {
          results = await ingestTexts(
            (path, body) => service.post(path, body),
            route,
            namespace,
            picked.map((entry) => entry.source),
          );
        } catch (error) {
          // A connection cut by the kill is a TypeError from fetch; anything else is an answer the service should not give.
          if (error instanceof TypeError) tally.interrupted++;
          else violations.push(`cycle ${cycle}: ${(error as Error).message}`);
          return;
        }
        results.forEach((result, position) => {
          const marker = markers[position] as string;
          const expectedFile = expectedFiles[position];
          if (expectedFile !== undefined && (result.status !== 'skipped' || result.file !== expectedFile)) {
            violations.push(`cycle ${cycle}: ${marker} was stored as ${expectedFile} before, now ${result.status} as ${result.file}`);
          }
          const known = acknowledged.get(marker);
          if (known !== undefined && known.file !== result.file)
            violations.push(`cycle ${cycle}: ${marker} answered as ${known.file} and as ${result.file}`);
          if (known === undefined)
            acknowledged.set(marker, { file: result.file, hash: contentHash(textByMarker.get(marker) as string), cycle });
          tally.acknowledged++;
        });
      }
    }

    /** What must hold on disk even before a restart: the stored index loads and holds everything acknowledged. */
    async function checkAfterKill(cycle: number, folder: NamespaceFolder): Promise<NamespaceIndex | undefined> {
      if (!folder.hasIndexFiles) {
        assert.equal(acknowledged.size, 0, `cycle ${cycle}: no index files although documents were acknowledged`);
        return undefined;
      }
      return readStoredIndex(directory).catch((error: unknown) =>
        assert.fail(`cycle ${cycle}: the index left by the kill does not load (${String(error)})`),
      );
    }

    /** What must hold once the service is up again and the namespace has been opened. */
    async function checkReconciled(cycle: number, service: ChildService): Promise<void> {
      const folder = await readNamespaceFolder(directory);
      if (!folder.hasIndexFiles) {
        assert.equal(acknowledged.size, 0, `cycle ${cycle}: no index files after the restart`);
        assert.deepEqual(folder.markdownFiles, []);
        return;
      }
      const index = await readStoredIndex(directory);
      assert.deepEqual(
        indexedFiles(index),
        folder.markdownFiles,
        `cycle ${cycle}: the stored index and the .md files differ after the restart`,
      );
      assert.deepEqual(folder.temporaryFiles, [], `cycle ${cycle}: temporary files left after the restart`);
      assert.deepEqual(duplicateHashes(index), [], `cycle ${cycle}: the same content is stored twice`);
      for (const document of index.documents) assert.ok(document.chunks.length > 0, `cycle ${cycle}: ${document.file} has no chunks`);
      const byFile = new Map(index.documents.map((document) => [document.file, document]));
      for (const [marker, entry] of acknowledged) {
        assert.equal(
          byFile.get(entry.file)?.hash,
          entry.hash,
          `cycle ${cycle}: acknowledged ${marker} (${entry.file}, cycle ${entry.cycle}) is missing or changed`,
        );
      }
      // Search for everything acknowledged in the cycle just killed, and a sample of older documents.
      const recent = [...acknowledged].filter(([, entry]) => entry.cycle === cycle - 1);
      const older = [...acknowledged].filter(([, entry]) => entry.cycle < cycle - 1);
      const sample = Array.from(
        { length: Math.min(5, older.length) },
        () => older[Math.floor(random() * older.length)] as [string, Acknowledged],
      );
      for (const [marker, entry] of [...recent, ...sample]) {
        const found = await searchDocs((path, body) => service.post(path, body), namespace, marker, 3);
        assert.equal(
          found.results[0]?.file,
          entry.file,
          `cycle ${cycle}: searchDocs "${marker}" found ${JSON.stringify(found.results.map((result) => result.file))}`,
        );
      }
      const warnings = service.output.filter((line) => line.includes('"level":40') && /unreadable|cannot read/.test(line));
      assert.deepEqual(warnings, [], `cycle ${cycle}: the service found damaged files`);
    }

    const started = Date.now();
    let startingMilliseconds = 0;
    // Cycle n: start the service and check what the kill of cycle n - 1 left; ingest; kill. The last cycle only checks.
    for (let cycle = 0; cycle <= killCycles; cycle++) {
      const tally: CycleStatistics = { acknowledged: 0, interrupted: 0, temporaryFilesAfterKill: 0, unindexedFilesAfterKill: 0 };
      // A test past its time-out runs on after its after hook has killed `child`: it must start no service then.
      if (context.signal.aborted) return;
      const startedAt = Date.now();
      child = await startChildService({ storageRoot, providerUrl: provider.baseUrl });
      startingMilliseconds += Date.now() - startedAt;
      if (context.signal.aborted) return void (await child.kill());
      const service = child;

      if (cycle > 0) {
        const atStartUp = await readNamespaceFolder(directory);
        const indexed = atStartUp.hasIndexFiles ? indexedFiles(await readStoredIndex(directory)) : [];
        const problems = [
          ...atStartUp.temporaryFiles.map((file) => `${file} left behind`),
          ...atStartUp.markdownFiles.filter((file) => !indexed.includes(file)).map((file) => `${file} not in the stored index`),
          ...indexed.filter((file) => !atStartUp.markdownFiles.includes(file)).map((file) => `${file} in the stored index but not on disk`),
        ];
        if (problems.length > 0)
          notReconciledAtStartUp.push(`cycle ${cycle}, after the kill of cycle ${cycle - 1}: ${problems.join(', ')}`);
      }
      // The first search opens (and so reconciles) the namespace; then every invariant is checked.
      try {
        await searchDocs((path, body) => service.post(path, body), namespace, 'runbook');
        await checkReconciled(cycle, service);
      } catch (error) {
        throw withServiceErrors(error, cycle, service);
      }
      if (cycle === killCycles) break;

      // One ingest before the clock starts: the first request after start-up is slow (cold code paths), and the
      // kill window is meant for the writes that follow it.
      const warmUp = newSource(cycle);
      sentMarkers.push(warmUp.marker);
      const [warmed] = await ingestTexts((path, body) => service.post(path, body), '/tools/ingest', namespace, [warmUp.source]);
      assert.equal(warmed?.status, 'saved');
      acknowledged.set(warmUp.marker, { file: warmed.file, hash: contentHash(warmUp.source.text), cycle });
      tally.acknowledged++;

      let stopped = false;
      const workers = Array.from({ length: workersPerCycle }, () => worker(service, cycle, () => stopped, tally));
      await sleep(killDelay.min + Math.floor(killRandom() * (killDelay.max - killDelay.min)));
      await service.kill();
      stopped = true;
      await Promise.all(workers);
      child = undefined;
      assert.deepEqual(violations, []);

      const afterKill = await readNamespaceFolder(directory);
      const index = await checkAfterKill(cycle, afterKill);
      tally.temporaryFilesAfterKill = afterKill.temporaryFiles.length;
      const indexed = new Set(index === undefined ? [] : indexedFiles(index));
      tally.unindexedFilesAfterKill = afterKill.markdownFiles.filter((file) => !indexed.has(file)).length;
      const byFile = new Map((index?.documents ?? []).map((document) => [document.file, document]));
      for (const [marker, entry] of acknowledged) {
        assert.equal(
          byFile.get(entry.file)?.hash,
          entry.hash,
          `cycle ${cycle}: acknowledged ${marker} (${entry.file}) is not in the stored index right after the kill`,
        );
        assert.ok(
          afterKill.markdownFiles.includes(entry.file),
          `cycle ${cycle}: acknowledged ${entry.file} has no .md file right after the kill`,
        );
      }
      statistics.push(tally);
    }

    // Embedding search works on what survived, and a clean shutdown exits 0.
    const last = [...acknowledged.values()].at(-1);
    if (last !== undefined && child !== undefined) {
      const marker = [...acknowledged].find(([, entry]) => entry === last)?.[0] as string;
      const response = await child.post('/tools/search', { namespace, query: marker, top_k: 1 });
      assert.equal(response.status, 200);
      const matches = ((await response.json()) as { matches: { chunk_id: string }[] }).matches;
      assert.equal(matches[0]?.chunk_id.split(':')[0], last.file.replace(/\.md$/, ''));
    }
    assert.equal(await child?.stop(), 0);
    child = undefined;
    assert.deepEqual(violations, []);

    const total = (key: 'acknowledged' | 'interrupted' | 'temporaryFilesAfterKill' | 'unindexedFilesAfterKill') =>
      statistics.reduce((sum, entry) => sum + entry[key], 0);
    context.diagnostic(
      `seed ${seed}: ${statistics.length} kills in ${((Date.now() - started) / 1000).toFixed(1)} s (${(startingMilliseconds / 1000).toFixed(1)} s of it starting the service); ${acknowledged.size} documents acknowledged, ${total('acknowledged')} acknowledged answers, ${total('interrupted')} requests cut off`,
    );
    context.diagnostic(
      `kills that cut a write short: ${statistics.filter((entry) => entry.temporaryFilesAfterKill > 0).length} left temporary files, ${statistics.filter((entry) => entry.unindexedFilesAfterKill > 0).length} left .md files not yet in the stored index`,
    );
    context.diagnostic(
      `restarts where the stored index did not agree with the folder yet when /health answered: ${notReconciledAtStartUp.length} of ${killCycles}`,
    );
    assert.ok(
      acknowledged.size > killCycles,
      `the stream acknowledged only ${acknowledged.size} documents: the kills came too early to test anything`,
    );
    // Checked last, so the invariants above are exercised over every cycle even while this one fails.
    assert.deepEqual(
      notReconciledAtStartUp,
      [],
      'start-up reconciles the namespace (README: "At start-up each namespace is reconciled with its folder")',
    );
  });
});
