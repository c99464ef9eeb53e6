// The retrieval step of an answer, as the agent streams it: the search_docs tool call with its query, then how many
// snippets it found, which can be expanded to list them with their citation numbers.
import type { RetrievedSnippet } from './api-types.js';
import { h, plural } from './dom.js';

export class RetrievalStep {
  readonly element: HTMLDivElement;
  private readonly label: HTMLSpanElement;
  private readonly list: HTMLOListElement;
  private readonly details: HTMLDetailsElement;
  private query = '';
  private namespace = '';

  constructor(toolName: string) {
    this.label = h('span', { className: 'step-label', text: 'Searching the documents…' });
    this.list = h('ol', { className: 'snippet-list' });
    this.details = h('details', { className: 'step-details' }, [h('summary', { text: 'Show snippets' }), this.list]);
    this.details.hidden = true;
    this.element = h('div', { className: 'retrieval-step', attributes: { 'data-state': 'running' } }, [
      h('div', { className: 'step-line' }, [
        h('span', { className: 'step-icon', attributes: { 'aria-hidden': 'true' } }),
        h('code', { className: 'step-tool', text: toolName }),
        this.label,
      ]),
      this.details,
    ]);
  }

  /** The tool call's arguments (JSON text of `{namespace, query}`). */
  setArguments(argumentsText: string): void {
    try {
      const args = JSON.parse(argumentsText) as { query?: unknown; namespace?: unknown };
      this.query = typeof args.query === 'string' ? args.query : '';
      this.namespace = typeof args.namespace === 'string' ? args.namespace : '';
    } catch {
      return;
    }
    this.label.textContent = `Searching ${this.namespace} for “${this.query}”…`;
  }

  found(snippets: readonly RetrievedSnippet[]): void {
    this.element.dataset.state = 'done';
    const where = this.namespace === '' ? '' : ` in ${this.namespace}`;
    this.label.textContent = `Found ${plural(snippets.length, 'snippet')} for “${this.query}”${where}`;
    this.list.replaceChildren(
      ...snippets.map((snippet, index) =>
        h('li', {}, [
          h('span', { className: 'snippet-number', text: String(index + 1) }),
          h('span', { className: 'snippet-title', text: snippet.title }),
          h('span', { className: 'snippet-file', text: snippet.file }),
        ]),
      ),
    );
    this.details.hidden = snippets.length === 0;
  }

  failed(): void {
    if (this.element.dataset.state === 'running') {
      this.element.dataset.state = 'failed';
      this.label.textContent = 'The search did not finish.';
    }
  }
}
