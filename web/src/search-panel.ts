// Compares the three rankings side by side: one query, POST /tools/search with mode lexical, embedding and hybrid.
// Each result says where the same chunk ranks in the other columns; a fallback or an unavailable model is explained.
import { ApiError, describeFailure, type ApiClient } from './api-client.js';
import type { SearchAnswer, SearchMatch, SearchMode } from './api-types.js';
import { baseName, h } from './dom.js';
import { displayExcerpt } from './excerpt-text.js';
import type { NamespacePicker } from './namespace-picker.js';

export interface SearchPanelElements {
  readonly form: HTMLFormElement;
  readonly query: HTMLInputElement;
  readonly topK: HTMLSelectElement;
  readonly submit: HTMLButtonElement;
  readonly columns: HTMLElement;
}

const modes: readonly { mode: SearchMode; title: string; note: string }[] = [
  { mode: 'lexical', title: 'Lexical', note: 'BM25 over titles, headings and text' },
  { mode: 'embedding', title: 'Embedding', note: 'Cosine similarity of embeddings' },
  { mode: 'hybrid', title: 'Hybrid', note: 'Both rankings fused' },
];

type ColumnOutcome = { readonly answer: SearchAnswer } | { readonly failure: string; readonly unavailable: boolean };

class Column {
  readonly element: HTMLElement;
  private readonly note: HTMLParagraphElement;
  private readonly notice: HTMLParagraphElement;
  private readonly results: HTMLOListElement;

  constructor(
    readonly mode: SearchMode,
    title: string,
    note: string,
  ) {
    const headingId = `search-column-${mode}`;
    this.note = h('p', { className: 'column-note', text: note });
    this.notice = h('p', { className: 'column-notice', attributes: { role: 'status' } });
    this.notice.hidden = true;
    this.results = h('ol', { className: 'results', attributes: { 'aria-labelledby': headingId } });
    this.element = h(
      'section',
      { className: 'search-column', attributes: { 'data-mode': mode, 'aria-labelledby': headingId, 'aria-busy': 'false' } },
      [
        h('header', { className: 'column-header' }, [h('h3', { text: title, attributes: { id: headingId } }), this.note]),
        this.notice,
        this.results,
      ],
    );
    this.empty('Results appear here.');
  }

  setNote(note: string): void {
    this.note.textContent = note;
  }

  loading(): void {
    this.element.setAttribute('aria-busy', 'true');
    this.element.dataset.state = 'loading';
    this.notice.hidden = true;
    this.empty('Searching…');
  }

  show(outcome: ColumnOutcome, rankOf: (mode: SearchMode, chunkId: string) => number | undefined): void {
    this.element.setAttribute('aria-busy', 'false');
    if ('failure' in outcome) {
      this.element.dataset.state = outcome.unavailable ? 'unavailable' : 'failed';
      this.say(outcome.unavailable ? `Embeddings are unavailable: ${outcome.failure}` : `The search failed: ${outcome.failure}`);
      this.empty(outcome.unavailable ? 'No embedding ranking on this service.' : 'No results.');
      return;
    }
    const { answer } = outcome;
    this.element.dataset.state = 'done';
    if (answer.mode !== this.mode)
      this.say(`Ranked ${answer.mode} instead: ${answer.notice ?? 'embeddings are not available for this namespace yet'}.`);
    else if (answer.notice !== undefined) this.say(answer.notice);
    else this.notice.hidden = true;
    if (answer.matches.length === 0) {
      this.empty('No matches in this namespace.');
      return;
    }
    this.results.replaceChildren(...answer.matches.map((match, index) => this.result(match, index + 1, rankOf)));
  }

  private result(match: SearchMatch, rank: number, rankOf: (mode: SearchMode, chunkId: string) => number | undefined): HTMLLIElement {
    const elsewhere = modes
      .filter((other) => other.mode !== this.mode)
      .map((other) => {
        const otherRank = rankOf(other.mode, match.chunk_id);
        return otherRank === undefined ? `not in ${other.title.toLowerCase()}` : `#${otherRank} ${other.title.toLowerCase()}`;
      });
    const item = h('li', { className: 'result', attributes: { 'data-chunk': match.chunk_id } }, [
      h('div', { className: 'result-head' }, [
        h('span', { className: 'result-rank', text: String(rank) }),
        h('span', { className: 'result-title', text: match.title }),
        h('span', {
          className: 'result-score',
          text: match.score >= 10 ? match.score.toFixed(1) : match.score.toFixed(3),
          attributes: { title: 'score' },
        }),
      ]),
      h('p', { className: 'result-excerpt', text: displayExcerpt(match.preview, match.title) }),
      h('p', { className: 'result-meta' }, [
        h('span', { className: 'result-file', text: baseName(match.source) }),
        h('span', { text: elsewhere.join(' · ') }),
      ]),
    ]);
    return item;
  }

  private say(message: string): void {
    this.notice.textContent = message;
    this.notice.hidden = false;
  }

  private empty(message: string): void {
    this.results.replaceChildren(h('li', { className: 'results-empty', text: message }));
  }
}

export class SearchPanel {
  private readonly columns: Column[];

  constructor(
    private readonly api: ApiClient,
    private readonly picker: NamespacePicker,
    private readonly elements: SearchPanelElements,
  ) {
    this.columns = modes.map((entry) => new Column(entry.mode, entry.title, entry.note));
    elements.columns.replaceChildren(...this.columns.map((column) => column.element));
    elements.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.compare();
    });
    // Hovering a result lights up the same chunk in the other columns.
    elements.columns.addEventListener('pointerover', (event) =>
      this.highlight((event.target as Element).closest('.result')?.getAttribute('data-chunk') ?? undefined),
    );
    elements.columns.addEventListener('pointerleave', () => this.highlight(undefined));
  }

  /** Names the embedding model in the embedding column's note (from /health). */
  setEmbeddingModel(model: string | null | undefined): void {
    this.columns[1]?.setNote(model ? `Cosine similarity · ${model}` : 'Cosine similarity of embeddings · no model configured');
  }

  private highlight(chunkId: string | undefined): void {
    for (const result of this.elements.columns.querySelectorAll('.result')) {
      result.classList.toggle('is-linked', chunkId !== undefined && result.getAttribute('data-chunk') === chunkId);
    }
  }

  private async compare(): Promise<void> {
    const { query, topK, submit } = this.elements;
    const namespace = this.picker.current();
    const text = query.value.trim();
    if (text === '' || namespace === undefined) {
      query.focus();
      return;
    }
    submit.disabled = true;
    for (const column of this.columns) column.loading();
    const limit = Number(topK.value);
    const outcomes = await Promise.all(
      this.columns.map(async (column): Promise<ColumnOutcome> => {
        try {
          return { answer: await this.api.search(namespace, text, column.mode, limit) };
        } catch (error) {
          return { failure: describeFailure(error), unavailable: error instanceof ApiError && error.code === 'embeddings_unavailable' };
        }
      }),
    );
    const rankOf = (mode: SearchMode, chunkId: string): number | undefined => {
      const outcome = outcomes[modes.findIndex((entry) => entry.mode === mode)];
      if (outcome === undefined || 'failure' in outcome) return undefined;
      const index = outcome.answer.matches.findIndex((match) => match.chunk_id === chunkId);
      return index === -1 ? undefined : index + 1;
    };
    this.columns.forEach((column, index) => column.show(outcomes[index] as ColumnOutcome, rankOf));
    submit.disabled = false;
  }
}
