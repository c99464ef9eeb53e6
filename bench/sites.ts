// The development sites: a docs tree (or a PDF manual) of ../shared/data each, with its question file in
// bench/questions/ (JSON Lines, the format `knowledge-agent eval` reads). Fastify's and Vite's docs are kept aside to
// check the settings chosen on these, and are not here.
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseQuestionFile, type EvalQuestion } from '../src/cli/evaluation.js';
import { requireSharedData, sharedDataDirectory } from './shared-data.js';

export interface Site {
  readonly name: string;
  /** The folder the site's files are in (the allowed file root when ingesting them). */
  readonly directory: string;
  /** Absolute paths of the files ingested, in order. */
  files(): Promise<string[]>;
  readonly questionFile: string;
}

const questionFile = (name: string) => fileURLToPath(new URL(`./questions/${name}.jsonl`, import.meta.url));

function docsTree(name: string, folder: string): Site {
  const directory = join(sharedDataDirectory, folder);
  return {
    name,
    directory,
    questionFile: questionFile(name),
    async files() {
      const names = await readdir(directory, { recursive: true });
      return names
        .filter((file) => file.endsWith('.md'))
        .map((file) => join(directory, file))
        .sort();
    },
  };
}

export const sites: readonly Site[] = [
  docsTree('fastapi', 'docs-fastapi'),
  docsTree('pydantic', 'docs-pydantic'),
  docsTree('uv', 'docs-uv'),
  docsTree('vue', 'docs-vue'),
  {
    name: 'bash-manual',
    directory: join(sharedDataDirectory, 'pdfs'),
    questionFile: questionFile('bash-manual'),
    files: async () => [join(sharedDataDirectory, 'pdfs', 'bash-reference-manual-5.2.pdf')],
  },
];

/** The sites named (all when none); stops with a message when their material is not beside the checkout. */
export function chosenSites(names: readonly string[]): Site[] {
  const chosen = names.map((name) => {
    const site = sites.find((known) => known.name === name);
    if (site === undefined) throw new Error(`unknown site ${name}: choose from ${sites.map((known) => known.name).join(', ')}`);
    return site;
  });
  const result = chosen.length === 0 ? [...sites] : chosen;
  requireSharedData(...result.map((site) => relative(sharedDataDirectory, site.directory)));
  return result;
}

export function siteQuestions(site: Site): EvalQuestion[] {
  return parseQuestionFile(readFileSync(site.questionFile, 'utf8'), site.questionFile);
}
