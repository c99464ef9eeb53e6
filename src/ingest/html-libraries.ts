// The HTML libraries (linkedom, Readability, turndown), loaded on first use rather than at start-up: together they
// are about a third of a second of CPU that a service which is not converting a page yet does not need to spend.
import { createRequire } from 'node:module';

type Linkedom = typeof import('linkedom');
type ReadabilityModule = typeof import('@mozilla/readability');
type TurndownModule = typeof import('turndown');
type GfmModule = typeof import('turndown-plugin-gfm');

const require = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

/** Synchronous, so the converters stay synchronous: each package is CommonJS (linkedom has a CommonJS build too). */
function load<Module>(name: string): Module {
  if (!loaded.has(name)) loaded.set(name, require(name));
  return loaded.get(name) as Module;
}

export const linkedom = (): Linkedom => load<Linkedom>('linkedom');
export const readability = (): ReadabilityModule => load<ReadabilityModule>('@mozilla/readability');
export const turndown = (): TurndownModule => load<TurndownModule>('turndown');
export const turndownGfm = (): GfmModule => load<GfmModule>('turndown-plugin-gfm');
