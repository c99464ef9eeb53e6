// Turns parsed Markdown (markdown.ts) into DOM nodes with createElement and text nodes only: nothing is ever parsed
// as HTML, links open in a new tab without access to this page, and citations become whatever `citation` builds.
import { h, type Child } from './dom.js';
import type { Block, Inline } from './markdown.js';

export type CitationFactory = (number: number) => HTMLElement;

function inlineNodes(inlines: readonly Inline[], citation: CitationFactory): Child[] {
  return inlines.map((inline): Child => {
    switch (inline.kind) {
      case 'text':
        return inline.text;
      case 'code':
        return h('code', { text: inline.text });
      case 'strong':
        return h('strong', {}, inlineNodes(inline.children, citation));
      case 'emphasis':
        return h('em', {}, inlineNodes(inline.children, citation));
      case 'link':
        return h(
          'a',
          { attributes: { href: inline.href, target: '_blank', rel: 'noopener noreferrer nofollow' } },
          inlineNodes(inline.children, citation),
        );
      case 'citation':
        return citation(inline.number);
    }
  });
}

export function renderMarkdown(blocks: readonly Block[], citation: CitationFactory): HTMLElement[] {
  return blocks.map((block) => {
    switch (block.kind) {
      case 'paragraph':
        return h('p', {}, inlineNodes(block.inlines, citation));
      case 'heading':
        // Answers sit under the page's own headings: their levels start at h3.
        return h(`h${Math.min(6, block.level + 2)}` as 'h3', { className: 'md-heading' }, inlineNodes(block.inlines, citation));
      case 'code': {
        const code = h('code', { text: block.text });
        if (block.language !== '') code.dataset.language = block.language;
        return h('pre', { className: 'md-code' }, [code]);
      }
      case 'list': {
        const items = block.items.map((item) => h('li', {}, inlineNodes(item, citation)));
        if (!block.ordered) return h('ul', {}, items);
        const list = h('ol', {}, items);
        if (block.start !== 1) list.start = block.start;
        return list;
      }
      case 'quote':
        return h('blockquote', {}, [h('p', {}, inlineNodes(block.inlines, citation))]);
      case 'rule':
        return h('hr');
    }
  });
}
