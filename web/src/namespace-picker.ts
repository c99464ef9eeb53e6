// Chooses the namespace every panel works on: an existing one (GET /tools/namespaces) or a new name, which the
// service creates with its first ingest.
import { describeFailure, type ApiClient } from './api-client.js';
import type { NamespaceSummary } from './api-types.js';
import { h, plural } from './dom.js';

/** Not a possible namespace name ('+' is not allowed in one), so it cannot clash with a real namespace. */
const newOption = '+new';

export interface NamespacePickerElements {
  readonly select: HTMLSelectElement;
  readonly newField: HTMLElement;
  readonly newInput: HTMLInputElement;
  readonly meta: HTMLElement;
  readonly refresh: HTMLButtonElement;
}

/** The name as the service will store it: letters, digits, - and _ only. */
export function sanitizeNamespace(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '');
}

export class NamespacePicker {
  private summaries: NamespaceSummary[] = [];
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly elements: NamespacePickerElements,
  ) {
    elements.select.addEventListener('change', () => {
      this.showSelection();
      if (this.isNew()) elements.newInput.focus();
      this.notify();
    });
    elements.newInput.addEventListener('input', () => {
      this.showSelection();
      this.notify();
    });
    elements.refresh.addEventListener('click', () => void this.refresh());
  }

  /** The namespace to act on; undefined when a new name is still empty. */
  current(): string | undefined {
    if (!this.isNew()) return this.elements.select.value === '' ? undefined : this.elements.select.value;
    const name = sanitizeNamespace(this.elements.newInput.value);
    return name === '' ? undefined : name;
  }

  isNew(): boolean {
    return this.elements.select.value === newOption;
  }

  /** Counts of the current namespace, when it exists. */
  summary(): NamespaceSummary | undefined {
    const name = this.current();
    return this.summaries.find((summary) => summary.name === name);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Reloads the list, keeping the selection (or selecting `select`, e.g. a namespace just created). */
  async refresh(select?: string): Promise<void> {
    const before = this.current();
    try {
      this.summaries = await this.api.namespaces();
    } catch (error) {
      this.summaries = [];
      this.fill(select ?? this.current());
      this.elements.meta.textContent = `Could not list namespaces: ${describeFailure(error)}`;
      this.elements.meta.dataset.tone = 'error';
      if (this.current() !== before) this.notify();
      return;
    }
    // Read after the wait: a name typed meanwhile is kept.
    this.fill(select ?? this.current());
    if (this.current() !== before || select !== undefined) this.notify();
  }

  private fill(wanted: string | undefined): void {
    const { select, newInput } = this.elements;
    select.replaceChildren(
      ...this.summaries.map((summary) =>
        h('option', {
          text: `${summary.name} (${plural(summary.documents, 'document')})`,
          attributes: { value: summary.name, title: summary.name },
        }),
      ),
      h('option', { text: 'New namespace…', attributes: { value: newOption } }),
    );
    // Without a wish (first visit), the first namespace; with none at all, a new one named like the service's default.
    const target = wanted ?? this.summaries[0]?.name;
    const existing = this.summaries.find((summary) => summary.name === target);
    if (existing !== undefined) {
      select.value = existing.name;
    } else {
      select.value = newOption;
      if (wanted !== undefined) newInput.value = wanted;
      else if (newInput.value === '') newInput.value = 'docs';
    }
    this.showSelection();
  }

  private showSelection(): void {
    const { newField, newInput, meta } = this.elements;
    newField.hidden = !this.isNew();
    meta.dataset.tone = 'normal';
    const summary = this.summary();
    if (summary !== undefined) {
      const model = summary.embedding_model === null ? 'not embedded yet' : `embedded with ${summary.embedding_model}`;
      meta.textContent = `${plural(summary.documents, 'document')} · ${plural(summary.chunks, 'chunk')} · ${model}`;
      return;
    }
    const name = this.current();
    if (name === undefined) {
      meta.textContent = 'Name the new namespace: letters, digits, - and _.';
    } else if (name !== newInput.value.trim()) {
      meta.textContent = `Will be created as "${name}" (only letters, digits, - and _ are kept) with its first documents.`;
    } else {
      meta.textContent = `"${name}" is created when you add its first documents.`;
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
