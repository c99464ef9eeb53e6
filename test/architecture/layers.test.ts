// The layer rules of ARCHITECTURE.md, enforced: every import in src/ points to its own part or to a part of a lower
// layer. The rules are read from ARCHITECTURE.md's layer table, so the page and the test cannot drift apart.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/package-root.js';

const sourceRoot = join(packageRoot, 'src');

/** Layer number of each part (a folder `name/` or a top-level file `name.ts`), from the table's rows `| n | parts | ... |`. */
function readLayers(markdown: string): Map<string, number> {
  const layers = new Map<string, number>();
  for (const row of markdown.matchAll(/^\|\s*(\d+)\s*\|([^|]+)\|/gm)) {
    for (const part of (row[2] as string).matchAll(/`([^`]+)`/g)) layers.set((part[1] as string).replace(/\/$|\.ts$/, ''), Number(row[1]));
  }
  return layers;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The part a file under src/ belongs to: its top-level folder, or its own name for a top-level file. */
function partOf(file: string): string {
  const [first, second] = relative(sourceRoot, file).split(sep);
  return second === undefined ? (first as string).replace(/\.[jt]s$/, '') : (first as string);
}

/** Relative module specifiers of static imports, re-exports, type imports and dynamic imports. */
function importedFiles(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)].map(
    (match) => match[1] as string,
  );
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
}

interface Import {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

/** Imports that point to another part of the same or a higher layer, or to a part the table does not place. */
function violations(imports: readonly Import[], layers: ReadonlyMap<string, number>): string[] {
  return imports.flatMap(({ file, from, to }) => {
    const fromLayer = layers.get(from) ?? Number.NaN;
    const toLayer = layers.get(to) ?? Number.NaN;
    return to === from || toLayer > fromLayer ? [] : [`${file} (${from}, layer ${fromLayer}) imports ${to} (layer ${toLayer})`];
  });
}

describe('the layers of ARCHITECTURE.md', () => {
  const layers = readLayers(readFileSync(join(packageRoot, 'ARCHITECTURE.md'), 'utf8'));
  const files = sourceFiles(sourceRoot);

  it('name every part of src/ in the layer table', () => {
    const unplaced = [...new Set(files.map(partOf))].filter((part) => !layers.has(part));
    assert.deepEqual(unplaced, [], 'add these parts to the layer table of ARCHITECTURE.md');
  });

  it('are kept by every import: a part imports only itself and parts of lower layers', () => {
    const imports = files.flatMap((file) =>
      importedFiles(file)
        .filter((target) => target.startsWith(sourceRoot + sep))
        .map((target) => ({ file: relative(packageRoot, file), from: partOf(file), to: partOf(target) })),
    );
    assert.ok(imports.length > 100, `only ${imports.length} imports found: the import pattern is broken`);
    assert.deepEqual(violations(imports, layers), []);
  });

  it('keep the services free of wire formats: below the routes and the configuration, no code names a format', () => {
    // A format's names (its tool names, Variant 1/2, AG-UI, Mastra) belong in its folder under routes/; comments may mention them.
    const formatName = /variant ?[12]|ag-?ui|mastra|search_docs|searchDocs/i;
    const serviceLayer = (layers.get('config') ?? Number.NaN) + 1;
    const named = files
      .filter((file) => (layers.get(partOf(file)) ?? 0) >= serviceLayer)
      .flatMap((file) => {
        const code = readFileSync(file, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/(^|\s)\/\/.*$/gm, '$1');
        const match = formatName.exec(code);
        return match === null ? [] : [`${relative(packageRoot, file)} names ${match[0]}`];
      });
    assert.ok(
      files.some((file) => partOf(file) === 'agent' && (layers.get('agent') ?? 0) >= serviceLayer),
      'agent/ is a service',
    );
    assert.deepEqual(named, []);
  });

  it('refuse an import that points up or sideways', () => {
    const [upwards, sideways, downwards] = violations(
      [
        { file: 'src/errors.ts', from: 'errors', to: 'store' },
        { file: 'src/search/a.ts', from: 'search', to: 'ingest' },
        { file: 'src/store/a.ts', from: 'store', to: 'indexes' },
      ],
      layers,
    );
    assert.match(upwards ?? '', /errors.*imports store/);
    assert.match(sideways ?? '', /search.*imports ingest/);
    assert.equal(downwards, undefined);
  });
});
