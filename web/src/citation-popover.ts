// The popover a citation button opens: the cited snippet, its document's title, original source and file.
// One shared, non-modal dialog; Escape or the close button returns focus to the citation, a click elsewhere closes it.
import type { RetrievedSnippet } from './api-types.js';
import { h, uniqueId } from './dom.js';
import { displayExcerpt } from './excerpt-text.js';

export interface CitationDetails {
  readonly number: number;
  readonly snippet: RetrievedSnippet;
  /** The document's original source (URL, upload name, "text"), when it can be listed. */
  readonly source: Promise<string | undefined>;
}

/** A link only for web addresses; anything else (a file name, "text") is shown as text. */
function sourceNode(source: string): Node {
  try {
    const url = new URL(source);
    if (url.protocol === 'http:' || url.protocol === 'https:') {
      return h('a', { text: source, attributes: { href: url.href, target: '_blank', rel: 'noopener noreferrer' } });
    }
  } catch {
    // Not a URL.
  }
  return document.createTextNode(source === 'text' ? 'pasted text' : source);
}

export class CitationPopover {
  private readonly element: HTMLDivElement;
  private readonly heading: HTMLHeadingElement;
  private readonly number: HTMLSpanElement;
  private readonly snippet: HTMLQuoteElement;
  private readonly source: HTMLElement;
  private readonly file: HTMLElement;
  private readonly score: HTMLElement;
  private anchor: HTMLButtonElement | undefined;
  private showing = 0;

  constructor() {
    const headingId = uniqueId('citation-title');
    this.heading = h('h3', { className: 'popover-title', attributes: { id: headingId } });
    this.number = h('span', { className: 'popover-number', attributes: { 'aria-hidden': 'true' } });
    const close = h('button', { className: 'icon-button', text: '×', attributes: { type: 'button', 'aria-label': 'Close citation' } });
    close.addEventListener('click', () => this.hide(true));
    this.snippet = h('blockquote', { className: 'popover-snippet' });
    this.source = h('dd', { className: 'popover-source' });
    this.file = h('dd');
    this.score = h('dd');
    this.element = h(
      'div',
      { className: 'popover', attributes: { id: uniqueId('citation'), role: 'dialog', 'aria-labelledby': headingId, tabindex: '-1' } },
      [
        h('div', { className: 'popover-header' }, [this.number, this.heading, close]),
        this.snippet,
        h('dl', { className: 'popover-meta' }, [
          h('dt', { text: 'Source' }),
          this.source,
          h('dt', { text: 'File' }),
          this.file,
          h('dt', { text: 'Score' }),
          this.score,
        ]),
      ],
    );
    this.element.hidden = true;
    document.body.append(this.element);

    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        this.hide(true);
      } else if (event.key === 'Tab' && this.leavesPopover(event.shiftKey)) {
        // Tabbing past either end goes back to the citation, so the answer's reading order continues from there.
        event.preventDefault();
        this.hide(true);
      }
    });
    document.addEventListener('pointerdown', (event) => {
      const target = event.target as Node;
      if (!this.element.hidden && !this.element.contains(target) && !this.anchor?.contains(target)) this.hide(false);
    });
    window.addEventListener('resize', () => this.place());
  }

  /** Binds a citation button to its details: click (or Enter / Space) toggles the popover. */
  attach(button: HTMLButtonElement, details: () => CitationDetails): void {
    button.setAttribute('aria-haspopup', 'dialog');
    button.setAttribute('aria-expanded', 'false');
    button.setAttribute('aria-controls', this.element.id);
    button.addEventListener('click', () => {
      if (this.anchor === button && !this.element.hidden) this.hide(true);
      else this.show(button, details());
    });
  }

  private show(anchor: HTMLButtonElement, details: CitationDetails): void {
    this.anchor?.setAttribute('aria-expanded', 'false');
    this.anchor = anchor;
    anchor.setAttribute('aria-expanded', 'true');
    const { snippet } = details;
    this.number.textContent = String(details.number);
    this.heading.textContent = snippet.title;
    this.snippet.textContent = displayExcerpt(snippet.excerpt, snippet.title);
    this.file.textContent = snippet.file;
    this.score.textContent = snippet.score.toFixed(3);
    this.source.replaceChildren(document.createTextNode('…'));
    const showing = ++this.showing;
    void details.source.then((source) => {
      if (showing === this.showing) this.source.replaceChildren(sourceNode(source ?? snippet.file));
    });
    this.element.hidden = false;
    this.place();
    this.element.focus({ preventScroll: true });
  }

  hide(returnFocus: boolean): void {
    if (this.element.hidden) return;
    this.element.hidden = true;
    this.anchor?.setAttribute('aria-expanded', 'false');
    if (returnFocus) this.anchor?.focus();
  }

  private leavesPopover(backwards: boolean): boolean {
    const focusable = [...this.element.querySelectorAll<HTMLElement>('button, a[href]')];
    const index = focusable.indexOf(document.activeElement as HTMLElement);
    return backwards ? index <= 0 : index === focusable.length - 1;
  }

  /** Below the citation (above it when there is no room below), within its card and the viewport. */
  private place(): void {
    if (this.anchor === undefined || this.element.hidden) return;
    const anchor = this.anchor.getBoundingClientRect();
    const width = this.element.offsetWidth;
    const height = this.element.offsetHeight;
    const margin = 8;
    // Inside the citation's card where it fits, and always inside the viewport.
    const card = this.anchor.closest('.card')?.getBoundingClientRect();
    const right = Math.min(document.documentElement.clientWidth - margin, card === undefined ? Infinity : card.right - 12);
    const left = Math.min(Math.max(margin, anchor.left - 24), right - width);
    const below = anchor.bottom + margin;
    const top = below + height > window.innerHeight && anchor.top - margin - height > 0 ? anchor.top - margin - height : below;
    this.element.style.left = `${Math.max(margin, left) + window.scrollX}px`;
    this.element.style.top = `${top + window.scrollY}px`;
  }
}
