// A streamed answer on screen: its Markdown rendered as it settles (in an aria-live region; never as HTML), `[n]`
// citations as buttons that open their snippet, and the final Sources line shown apart, each source linking to the
// page it came from when it came from one.
import type { RetrievedSnippet } from './api-types.js';
import { settledLength, splitSources } from './answer-text.js';
import type { CitationDetails } from './citation-popover.js';
import { h } from './dom.js';
import { parseMarkdown, safeHref } from './markdown.js';
import { renderMarkdown } from './markdown-view.js';

export interface AnswerViewOptions {
  /** The snippets of the retrieval step (citation n is snippets[n - 1]); read when a citation is shown. */
  readonly snippets: () => readonly RetrievedSnippet[];
  readonly bindCitation: (button: HTMLButtonElement, details: () => CitationDetails) => void;
  readonly sourceOf: (snippet: RetrievedSnippet) => Promise<string | undefined>;
  /** The original source (URL, path, upload name) of a document, by its file name. */
  readonly sourceOfFile: (file: string) => Promise<string | undefined>;
}

export class AnswerView {
  readonly element: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly sources: HTMLParagraphElement;
  private text = '';
  private shown = 0;

  constructor(private readonly options: AnswerViewOptions) {
    this.body = h('div', { className: 'answer-body', attributes: { 'aria-live': 'polite', 'aria-busy': 'true' } });
    this.sources = h('p', { className: 'answer-sources' });
    this.sources.hidden = true;
    this.element = h('div', { className: 'answer', attributes: { 'data-state': 'streaming' } }, [this.body, this.sources]);
  }

  append(delta: string): void {
    this.text += delta;
    this.render(settledLength(this.text));
  }

  /** The whole answer has arrived: shows what was held back and the Sources line. */
  finish(): string {
    const { body, sources } = splitSources(this.text);
    this.render(Math.max(this.shown, body.length));
    this.element.dataset.state = 'done';
    this.body.setAttribute('aria-busy', 'false');
    if (sources !== undefined) {
      const snippets = this.options.snippets();
      this.sources.replaceChildren(
        h('span', { className: 'sources-label', text: 'Sources' }),
        ...(sources.length === 0
          ? [h('span', { className: 'source-chip is-none', text: 'none' })]
          : sources.map((label) => {
              const cited = snippets.find((snippet) => snippet.file === label || snippet.title === label);
              return this.sourceChip(
                cited === undefined || cited.title === label ? label : `${cited.title} (${label})`,
                cited?.file ?? label,
              );
            })),
      );
      this.sources.hidden = false;
    }
    return this.text;
  }

  /** Marks an answer that stopped early (error or stop); what was shown stays. */
  interrupt(): string {
    this.render(this.text.trimEnd().length);
    this.element.dataset.state = 'interrupted';
    this.body.setAttribute('aria-busy', 'false');
    return this.text;
  }

  get isEmpty(): boolean {
    return this.text.trim() === '';
  }

  /** A Sources entry: a link to the original page once its document's source turns out to be a web address. */
  private sourceChip(text: string, file: string): HTMLElement {
    const chip = h('span', { className: 'source-chip', text });
    void this.options.sourceOfFile(file).then(
      (source) => {
        const href = source === undefined ? undefined : safeHref(source);
        if (href === undefined || !/^https?:/i.test(href) || !chip.isConnected) return;
        chip.replaceWith(
          h('a', {
            className: 'source-chip is-link',
            text,
            attributes: { href, target: '_blank', rel: 'noopener noreferrer nofollow', title: source ?? href },
          }),
        );
      },
      () => undefined,
    );
    return chip;
  }

  /** Renders the first `end` characters as Markdown, again as a whole: a mark may close only later in the stream. */
  private render(end: number): void {
    if (end <= this.shown) return;
    const snippets = this.options.snippets();
    const citation = (number: number) => {
      const snippet = snippets[number - 1];
      const button = h('button', {
        className: 'citation',
        text: String(number),
        attributes: { type: 'button', 'aria-label': `Citation ${number}${snippet === undefined ? '' : `: ${snippet.title}`}` },
      });
      this.options.bindCitation(button, () => {
        const cited = this.options.snippets()[number - 1] as RetrievedSnippet;
        return { number, snippet: cited, source: this.options.sourceOf(cited) };
      });
      return button;
    };
    this.body.replaceChildren(...renderMarkdown(parseMarkdown(this.text.slice(0, end), snippets.length), citation));
    this.shown = end;
  }
}
