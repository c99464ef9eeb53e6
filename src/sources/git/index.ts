// Git sources' repository layer: a shallow mirror per source fetched with the system git under the address policy,
// the files a source ingests (folder and patterns), and the URLs documents are cited by.
export { documentUrl, checkLinkTemplate, type DocumentLocation } from './document-url.js';
export { GitMirror, type FetchRequest, type FileSelection, type GitMirrorOptions, type RepositoryFile } from './git-mirror.js';
export { createPathMatcher, defaultDocumentPatterns } from './path-pattern.js';
export type { RemotePolicy } from './remote-address.js';
