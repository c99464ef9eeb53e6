// Thumbs up or down under an answer, with an optional comment on what was wrong or missing, sent as feedback on the
// answer's run (POST /api/feedback): what the docs owners' gaps report is made of.
import { describeFailure, type ApiClient } from './api-client.js';
import { h } from './dom.js';

/** A thumb (Material Icons' thumb_up, Apache 2.0), drawn rather than an emoji: not every system has an emoji font. */
function thumb(direction: 'up' | 'down'): SVGSVGElement {
  const namespace = 'http://www.w3.org/2000/svg';
  const icon = document.createElementNS(namespace, 'svg');
  icon.setAttribute('viewBox', '0 0 24 24');
  icon.setAttribute('aria-hidden', 'true');
  icon.setAttribute('class', `thumb thumb-${direction}`);
  const path = document.createElementNS(namespace, 'path');
  path.setAttribute(
    'd',
    'M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z',
  );
  icon.append(path);
  return icon;
}

export class FeedbackBar {
  readonly element: HTMLDivElement;
  private readonly up: HTMLButtonElement;
  private readonly down: HTMLButtonElement;
  private readonly commentForm: HTMLFormElement;
  private readonly comment: HTMLInputElement;
  private readonly status: HTMLSpanElement;

  constructor(
    private readonly api: ApiClient,
    private readonly runId: string,
  ) {
    this.up = h(
      'button',
      { className: 'feedback-button', attributes: { type: 'button', 'aria-label': 'Helpful', 'aria-pressed': 'false' } },
      [thumb('up')],
    );
    this.down = h(
      'button',
      { className: 'feedback-button', attributes: { type: 'button', 'aria-label': 'Not helpful', 'aria-pressed': 'false' } },
      [thumb('down')],
    );
    this.comment = h('input', {
      className: 'feedback-comment',
      attributes: { type: 'text', maxlength: '2000', placeholder: 'What was wrong or missing? (optional)', 'aria-label': 'Comment' },
    });
    this.commentForm = h('form', { className: 'feedback-form' }, [
      this.comment,
      h('button', { className: 'button-quiet', text: 'Send', attributes: { type: 'submit' } }),
    ]);
    this.commentForm.hidden = true;
    this.status = h('span', { className: 'feedback-status', attributes: { role: 'status' } });
    this.element = h('div', { className: 'feedback' }, [
      h('span', { className: 'feedback-question', text: 'Was this answer helpful?' }),
      this.up,
      this.down,
      this.commentForm,
      this.status,
    ]);
    this.up.addEventListener('click', () => void this.send('up'));
    this.down.addEventListener('click', () => {
      this.press('down');
      this.commentForm.hidden = false;
      this.comment.focus();
      void this.send('down');
    });
    this.commentForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const comment = this.comment.value.trim();
      if (comment !== '') void this.send('down', comment);
    });
  }

  private press(rating: 'up' | 'down'): void {
    this.up.setAttribute('aria-pressed', String(rating === 'up'));
    this.down.setAttribute('aria-pressed', String(rating === 'down'));
  }

  /** The last rating of a run counts: a change of mind, or a comment after the thumbs down, is sent again. */
  private async send(rating: 'up' | 'down', comment?: string): Promise<void> {
    this.press(rating);
    if (rating === 'up') this.commentForm.hidden = true;
    this.status.textContent = 'Sending…';
    try {
      await this.api.feedback(this.runId, rating, comment);
      this.status.textContent = comment !== undefined ? 'Thanks, the comment is sent.' : 'Thanks for the feedback.';
      if (comment !== undefined) this.commentForm.hidden = true;
    } catch (error) {
      this.status.textContent = `Feedback failed: ${describeFailure(error)}`;
    }
  }
}
