// Asks the agent (POST /agent, AG-UI events) and shows each turn: the question, the retrieval step, and the answer
// streaming in with its citations. Earlier turns in the same namespace are sent along as the conversation.
import { describeFailure, isAgUiEvent, type ApiClient } from './api-client.js';
import type { RetrievedSnippet } from './api-types.js';
import { AnswerView } from './answer-view.js';
import type { CitationPopover } from './citation-popover.js';
import type { DocumentIndex } from './document-index.js';
import { h } from './dom.js';
import { FeedbackBar } from './feedback-bar.js';
import type { NamespacePicker } from './namespace-picker.js';
import { RetrievalStep } from './retrieval-step.js';

export interface ChatPanelElements {
  readonly transcript: HTMLElement;
  readonly form: HTMLFormElement;
  readonly question: HTMLTextAreaElement;
  readonly submit: HTMLButtonElement;
  readonly notice: HTMLElement;
}

interface Message {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** One question and its answer on screen. */
class Turn {
  readonly element: HTMLElement;
  private readonly steps: HTMLElement;
  private readonly error: HTMLParagraphElement;
  retrieval: RetrievalStep | undefined;
  answer: AnswerView | undefined;
  snippets: readonly RetrievedSnippet[] = [];

  constructor(question: string, namespace: string) {
    this.steps = h('div', { className: 'turn-steps' });
    this.error = h('p', { className: 'turn-error', attributes: { role: 'alert' } });
    this.error.hidden = true;
    this.element = h('article', { className: 'turn', attributes: { 'aria-label': `Question: ${question}` } }, [
      h('div', { className: 'question' }, [
        h('p', { className: 'question-text', text: question }),
        h('span', { className: 'question-namespace', text: namespace }),
      ]),
      this.steps,
      this.error,
    ]);
  }

  add(node: HTMLElement): void {
    this.steps.append(node);
  }

  fail(message: string): void {
    this.error.textContent = message;
    this.error.hidden = false;
  }
}

export class ChatPanel {
  private readonly history = new Map<string, Message[]>();
  private running: AbortController | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly picker: NamespacePicker,
    private readonly documents: DocumentIndex,
    private readonly popover: CitationPopover,
    private readonly elements: ChatPanelElements,
  ) {
    const { form, question } = elements;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (this.running !== undefined) this.running.abort();
      else void this.ask();
    });
    question.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        // While an answer streams, the button stops it; Enter only sends.
        if (this.running === undefined) form.requestSubmit();
      }
    });
  }

  /** Disables asking, with the reason, when the service cannot answer. */
  setUnavailable(reason: string | undefined): void {
    this.elements.notice.textContent = reason ?? '';
    this.elements.notice.hidden = reason === undefined;
    this.elements.submit.disabled = reason !== undefined;
  }

  private async ask(): Promise<void> {
    const { question, submit, transcript } = this.elements;
    const text = question.value.trim();
    const namespace = this.picker.current();
    if (text === '' || namespace === undefined) {
      question.focus();
      return;
    }
    const history = this.history.get(namespace) ?? [];
    const userMessage: Message = { id: crypto.randomUUID(), role: 'user', content: text };
    const turn = new Turn(text, namespace);
    transcript.querySelector('.transcript-empty')?.remove();
    transcript.append(turn.element);
    question.value = '';
    const controller = new AbortController();
    this.running = controller;
    submit.textContent = 'Stop';
    submit.classList.add('is-stop');
    turn.element.scrollIntoView({ block: 'nearest', behavior: 'smooth' });

    let answerText: string | undefined;
    try {
      answerText = await this.run(namespace, [...history, userMessage], turn, controller.signal);
    } catch (error) {
      answerText = turn.answer?.interrupt();
      turn.retrieval?.failed();
      turn.fail(controller.signal.aborted ? 'Stopped.' : `The answer failed: ${describeFailure(error)}`);
    } finally {
      this.running = undefined;
      submit.textContent = 'Ask';
      submit.classList.remove('is-stop');
    }
    if (answerText !== undefined && answerText.trim() !== '') {
      this.history.set(namespace, [...history, userMessage, { id: crypto.randomUUID(), role: 'assistant', content: answerText }]);
    }
  }

  /** Streams one run into the turn; returns the complete answer text. */
  private async run(namespace: string, messages: readonly Message[], turn: Turn, signal: AbortSignal): Promise<string | undefined> {
    const toolArguments = new Map<string, string>();
    const runId = crypto.randomUUID();
    let answerText: string | undefined;
    for await (const event of await this.api.runAgent(namespace, messages, runId, signal)) {
      if (!isAgUiEvent(event)) continue;
      switch (event.type) {
        case 'TOOL_CALL_START':
          turn.retrieval = new RetrievalStep(event.toolCallName);
          turn.add(turn.retrieval.element);
          toolArguments.set(event.toolCallId, '');
          break;
        case 'TOOL_CALL_ARGS':
          toolArguments.set(event.toolCallId, (toolArguments.get(event.toolCallId) ?? '') + event.delta);
          break;
        case 'TOOL_CALL_END':
          turn.retrieval?.setArguments(toolArguments.get(event.toolCallId) ?? '');
          break;
        case 'TOOL_CALL_RESULT':
          turn.snippets = this.parseSnippets(event.content);
          turn.retrieval?.found(turn.snippets);
          // Prefetch the documents' sources, so a citation opens with its source at once.
          if (turn.snippets[0] !== undefined) void this.documents.lookup(namespace, turn.snippets[0].file);
          break;
        case 'TEXT_MESSAGE_START':
          turn.answer = new AnswerView({
            snippets: () => turn.snippets,
            bindCitation: (button, details) => this.popover.attach(button, details),
            sourceOf: async (snippet) => (await this.documents.lookup(namespace, snippet.file))?.source,
            sourceOfFile: async (file) => (await this.documents.lookup(namespace, file))?.source,
          });
          turn.add(turn.answer.element);
          break;
        case 'TEXT_MESSAGE_CONTENT':
          turn.answer?.append(event.delta);
          break;
        case 'TEXT_MESSAGE_END':
          answerText = turn.answer?.finish();
          break;
        case 'RUN_ERROR':
          throw new Error(event.message);
        case 'RUN_FINISHED':
          turn.add(new FeedbackBar(this.api, runId).element);
          return answerText ?? turn.answer?.finish();
      }
    }
    // The stream ended without RUN_FINISHED: the connection broke.
    throw new Error('the answer stream ended early');
  }

  private parseSnippets(content: string): RetrievedSnippet[] {
    try {
      const parsed = JSON.parse(content) as { results?: unknown };
      return Array.isArray(parsed.results) ? (parsed.results as RetrievedSnippet[]) : [];
    } catch {
      return [];
    }
  }
}
