// The playground's entry point: finds the page's parts, connects them to the API client and loads the service state.
import { ApiClient, describeFailure } from './api-client.js';
import { ChatPanel } from './chat-panel.js';
import { CitationPopover } from './citation-popover.js';
import { DocumentIndex } from './document-index.js';
import { byId } from './dom.js';
import { IngestPanel } from './ingest-panel.js';
import { InsightsPanel } from './insights-panel.js';
import { NamespacePicker } from './namespace-picker.js';
import { SearchPanel } from './search-panel.js';
import { SourcesPanel } from './sources-panel.js';
import { TokenField } from './token-field.js';

const tokenField = new TokenField(byId('token-input', HTMLInputElement), byId('token-state', HTMLElement), () => void loadServiceState());
const api = new ApiClient(() => tokenField.value());
const documents = new DocumentIndex(api);

const picker = new NamespacePicker(api, {
  select: byId('namespace-select', HTMLSelectElement),
  newField: byId('new-namespace-field', HTMLElement),
  newInput: byId('new-namespace', HTMLInputElement),
  meta: byId('namespace-meta', HTMLElement),
  refresh: byId('namespace-refresh', HTMLButtonElement),
});

/** After documents were added or changed: the counts and cached listings of their namespace are read again. */
async function namespaceChanged(namespace: string): Promise<void> {
  documents.forget(namespace);
  await picker.refresh(namespace);
}

new IngestPanel(
  api,
  picker,
  {
    form: byId('ingest-form', HTMLFormElement),
    dropzone: byId('dropzone', HTMLElement),
    fileInput: byId('file-input', HTMLInputElement),
    folderInput: byId('folder-input', HTMLInputElement),
    fileQueue: byId('file-queue', HTMLUListElement),
    pasteInput: byId('paste-input', HTMLTextAreaElement),
    pasteHint: byId('paste-hint', HTMLElement),
    submit: byId('ingest-submit', HTMLButtonElement),
    summary: byId('ingest-summary', HTMLElement),
    statusList: byId('ingest-status', HTMLUListElement),
  },
  namespaceChanged,
);

const chat = new ChatPanel(api, picker, documents, new CitationPopover(), {
  transcript: byId('transcript', HTMLElement),
  form: byId('ask-form', HTMLFormElement),
  question: byId('question', HTMLTextAreaElement),
  submit: byId('ask-submit', HTMLButtonElement),
  notice: byId('chat-notice', HTMLElement),
});

const search = new SearchPanel(api, picker, {
  form: byId('search-form', HTMLFormElement),
  query: byId('search-query', HTMLInputElement),
  topK: byId('search-top-k', HTMLSelectElement),
  submit: byId('search-submit', HTMLButtonElement),
  columns: byId('search-columns', HTMLElement),
});

new InsightsPanel(api, picker, {
  form: byId('insights-form', HTMLFormElement),
  since: byId('insights-since', HTMLSelectElement),
  submit: byId('insights-submit', HTMLButtonElement),
  output: byId('insights-output', HTMLElement),
});

new SourcesPanel(
  api,
  picker,
  {
    form: byId('sources-form', HTMLFormElement),
    url: byId('source-url', HTMLInputElement),
    kind: byId('source-kind', HTMLSelectElement),
    every: byId('source-every', HTMLSelectElement),
    crawlOptions: byId('source-crawl-options', HTMLFieldSetElement),
    maxPages: byId('source-max-pages', HTMLInputElement),
    maxDepth: byId('source-max-depth', HTMLInputElement),
    prune: byId('source-prune', HTMLInputElement),
    gitOptions: byId('source-git-options', HTMLFieldSetElement),
    branch: byId('source-branch', HTMLInputElement),
    folder: byId('source-folder', HTMLInputElement),
    submit: byId('source-submit', HTMLButtonElement),
    summary: byId('sources-summary', HTMLElement),
    list: byId('sources-list', HTMLUListElement),
  },
  namespaceChanged,
);

const namespaceLabels = document.querySelectorAll<HTMLElement>('[data-namespace-label]');
picker.onChange(() => {
  for (const label of namespaceLabels) label.textContent = picker.current() ?? 'the new namespace';
});

async function loadServiceState(): Promise<void> {
  const status = byId('service-status', HTMLElement);
  try {
    const health = await api.health();
    const ready = health.agent === 'ready';
    status.dataset.state = ready ? 'ready' : 'degraded';
    status.textContent = [
      `v${health.version ?? '?'}`,
      ready ? `answers: ${health.chat_model ?? 'ready'}` : 'answers: unavailable',
      `embeddings: ${health.embedding_model ?? 'none'}`,
    ].join(' · ');
    chat.setUnavailable(
      ready
        ? undefined
        : `The agent cannot answer on this service (${health.agent ?? 'not initialized'}). Start it with LLM_API_KEY, or with KNOWLEDGE_AGENT_MODEL=extractive to answer without a provider.`,
    );
    search.setEmbeddingModel(health.embedding_model);
  } catch (error) {
    status.dataset.state = 'down';
    status.textContent = `Service unreachable: ${describeFailure(error)}`;
  }
  await picker.refresh();
}

void loadServiceState();
