// Builds DOM nodes safely: strings always become text nodes, never markup.

export type Child = Node | string | null | undefined | false;

export interface ElementProps {
  readonly className?: string;
  readonly text?: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

export function h<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  props: ElementProps = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[Tag] {
  const element = document.createElement(tag);
  if (props.className !== undefined) element.className = props.className;
  if (props.text !== undefined) element.textContent = props.text;
  for (const [name, value] of Object.entries(props.attributes ?? {})) element.setAttribute(name, value);
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function clear(element: Element): void {
  element.replaceChildren();
}

/** The element with this id, of the expected type; a missing one is a bug in index.html. */
export function byId<Type extends HTMLElement>(id: string, type: { new (): Type }): Type {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`index.html has no ${type.name} #${id}`);
  return element;
}

let idCounter = 0;

/** A page-unique id for aria-controls / aria-labelledby pairs. */
export function uniqueId(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** The last segment of a path or URL (a storage path's file name). */
export function baseName(path: string): string {
  return (
    path
      .split(/[\\/]/)
      .filter((part) => part !== '')
      .pop() ?? path
  );
}

/** "1 chunk", "3 chunks". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
