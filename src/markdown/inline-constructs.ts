// What the inline syntax of documentation generators becomes in plain Markdown: an HTML tag (its Markdown, or nothing),
// an MDX component (a tab's or an aside's label, or nothing), a Hugo shortcode (its label, the page it refers to, or
// nothing) and a MyST role (the text it shows). inline-markup.ts finds the syntax; this says what replaces it.

/** HTML elements that appear inline in documentation prose; anything else in angle brackets is left alone. */
const htmlElements = new Set(
  (
    'a abbr b big blockquote br center code del details dfn div em figcaption figure font hr i img ins kbd mark p ' +
    'picture pre q s samp small source span strike strong sub summary sup table tbody td tfoot th thead tr tt u var video'
  ).split(' '),
);
/** Presentational tags that terminal transcripts in code blocks carry (colours, underlines). */
const presentationalInCode = new Set(['span', 'font', 'u', 'b', 'strong', 'em', 'i']);
/** Elements written as Markdown when a closing tag follows on the line. */
const markdownOfElement: Readonly<Record<string, string>> = {
  b: '**',
  strong: '**',
  em: '*',
  i: '*',
  code: '`',
  kbd: '`',
  samp: '`',
  tt: '`',
};
/** Components whose opening tag is a tab: its label is the tab's. */
const tabComponents = new Set(['Tab', 'TabItem', 'TabsTab', 'TabsItem']);
/** Components that frame an aside: their title, or their type, labels it. */
const asideComponents = new Set(['Admonition', 'Callout', 'Aside', 'Alert']);
/** Hugo shortcodes that frame an aside (`{{% notice tip %}}`) or a tab (`{{< tab "Label" >}}`). */
const asideShortcodes = new Set([
  'notice',
  'hint',
  'alert',
  'callout',
  'admonition',
  'details',
  'expand',
  'collapse',
  'note',
  'tip',
  'info',
  'warning',
  'danger',
  'caution',
]);
const tabShortcodes = new Set(['tab', 'tabs.tab', 'tabitem']);
/** Shortcodes that name a page (`{{< ref "install.md" >}}`): the page stays, as a link target would. */
const pageShortcodes = new Set(['ref', 'relref']);
/** MyST roles that show code ({py:class}`Name`); any role with a domain (`py:`, `js:`) does too. */
const codeRoles = new Set(
  'class func meth attr mod obj data const exc code literal command envvar option file samp kbd program makevar regexp'.split(' '),
);

/** A tag as written: `<name attributes>`, `</name>` or `<name attributes />`. */
export interface TagSyntax {
  readonly name: string;
  readonly closing: boolean;
  readonly selfClosing: boolean;
  /** The attributes as written (read only when the tag is replaced). */
  readonly attributes: () => string;
}

/** HTML elements converted to Markdown pairs, and the link targets of open `<a>` elements, along one line. */
export interface ConversionState {
  readonly open: Map<string, number>;
  readonly linkTargets: string[];
}

export function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/** A label line's text: its emphasis markers go, since the label is set in bold as a whole. */
export function labelText(text: string): string {
  return text.replaceAll('**', '').replaceAll('__', '').trim();
}

const bold = (text: string | undefined): string => {
  const label = text === undefined ? '' : labelText(text);
  return label === '' ? '' : `**${label}**`;
};

/** `key="value"`, `key='value'`, `key={"value"}` or `key=value` attributes (or arguments) by name, and the bare values. */
export function parseAttributes(text: string): { named: Map<string, string>; positional: string[] } {
  const named = new Map<string, string>();
  const positional: string[] = [];
  let index = 0;
  const readValue = (): string => {
    const quote = text.charAt(index);
    if (quote === '"' || quote === "'") {
      const end = text.indexOf(quote, index + 1);
      const value = text.slice(index + 1, end === -1 ? text.length : end);
      index = end === -1 ? text.length : end + 1;
      return value;
    }
    if (quote === '{') {
      const end = text.indexOf('}', index);
      const inner = text.slice(index + 1, end === -1 ? text.length : end).trim();
      index = end === -1 ? text.length : end + 1;
      const quoted = inner.length >= 2 && /["'`]/.test(inner.charAt(0)) && inner.endsWith(inner.charAt(0));
      return quoted ? inner.slice(1, -1) : inner;
    }
    const start = index;
    while (index < text.length && !/[\s/>]/.test(text.charAt(index))) index++;
    return text.slice(start, index);
  };
  while (index < text.length) {
    const character = text.charAt(index);
    if (/[\s/]/.test(character)) {
      index++;
      continue;
    }
    if (character === '"' || character === "'") {
      positional.push(readValue());
      continue;
    }
    const start = index;
    while (index < text.length && /[\w:.@-]/.test(text.charAt(index))) index++;
    if (index === start) {
      index++;
      continue;
    }
    const name = text.slice(start, index);
    if (text.charAt(index) === '=') {
      index++;
      named.set(name.toLowerCase(), readValue());
    } else positional.push(name);
  }
  return { named, positional };
}

/** What replaces an HTML tag or an MDX component in prose, or undefined to keep it. */
export function tagReplacement(tag: TagSyntax, closesLater: (name: string) => boolean, state: ConversionState): string | undefined {
  if (/^[A-Z]/.test(tag.name)) return componentReplacement(tag);
  const name = tag.name.toLowerCase();
  if (!htmlElements.has(name)) return undefined;
  if (name === 'br') return ' ';
  if (name === 'a') {
    if (tag.closing) return state.linkTargets.length > 0 ? `](${state.linkTargets.pop() as string})` : '';
    const href = parseAttributes(tag.attributes()).named.get('href');
    if (href === undefined || !/^https?:/.test(href) || !closesLater('a')) return '';
    state.linkTargets.push(href);
    return '[';
  }
  const markdown = markdownOfElement[name];
  if (markdown === undefined || tag.selfClosing) return '';
  const open = state.open.get(name) ?? 0;
  if (tag.closing) {
    if (open === 0) return '';
    state.open.set(name, open - 1);
    return markdown;
  }
  if (!closesLater(name)) return '';
  state.open.set(name, open + 1);
  return markdown;
}

/** Tags of terminal transcripts in code blocks: colours and emphasis go, the rest is code. */
export const consoleTagReplacement = (tag: TagSyntax): string | undefined =>
  presentationalInCode.has(tag.name.toLowerCase()) ? '' : undefined;

/** An MDX component's tag: a tab's or an aside's opening tag becomes its label, a badge its text, any other goes. */
function componentReplacement(tag: TagSyntax): string {
  if (tag.closing) return '';
  const name = tag.name.replaceAll('.', '');
  const isTab = tabComponents.has(name);
  const isAside = asideComponents.has(name);
  if (!isTab && !isAside && name !== 'Badge') return '';
  const { named } = parseAttributes(tag.attributes());
  if (name === 'Badge') return named.get('text') ?? '';
  if (tag.selfClosing) return '';
  if (isTab) return bold(named.get('label') ?? named.get('title') ?? named.get('value'));
  const type = named.get('type');
  return bold(named.get('title') ?? (type === undefined ? undefined : titleCase(type)));
}

/** A Hugo shortcode (`content` is what `{{<` and `>}}`, or `{{%` and `%}}`, enclose). */
export function shortcodeReplacement(content: string): string {
  const trimmed = content.trim();
  if (trimmed.startsWith('/')) return '';
  const nameEnd = trimmed.search(/\s|$/);
  const name = trimmed.slice(0, nameEnd).toLowerCase();
  const { named, positional } = parseAttributes(trimmed.slice(nameEnd));
  if (pageShortcodes.has(name)) return positional[0] ?? '';
  if (tabShortcodes.has(name)) return bold(named.get('name') ?? named.get('title') ?? named.get('label') ?? positional[0]);
  if (!asideShortcodes.has(name)) return '';
  const title = named.get('title') ?? (['details', 'expand', 'collapse'].includes(name) ? positional[0] : undefined);
  const kind = named.get('style') ?? named.get('type') ?? (name === 'notice' || name === 'hint' || name === 'alert' ? positional[0] : name);
  return bold(title ?? (kind === undefined || ['details', 'expand', 'collapse'].includes(kind) ? undefined : titleCase(kind)));
}

/**
 * What a MyST role shows: {ref}`the title <target>` its title, {py:class}`~pkg.Name` the code `Name`. Undefined when
 * `name` is not a role's name.
 */
export function roleText(name: string, content: string): { text: string; code: boolean } | undefined {
  if (!/^[A-Za-z][\w:+.-]*$/.test(name) || content.trim() === '') return undefined;
  const code = name.includes(':') || codeRoles.has(name);
  let text = content;
  const targetStart = text.endsWith('>') ? text.lastIndexOf('<') : -1;
  if (targetStart > 0 && text.slice(0, targetStart).trim() !== '') text = text.slice(0, targetStart).trim();
  else if (code && text.startsWith('~')) text = text.slice(Math.max(1, text.lastIndexOf('.') + 1)) || text.slice(1);
  else if (code && text.startsWith('!')) text = text.slice(1);
  return { text, code };
}
