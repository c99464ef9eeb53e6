// The Insights view of a namespace (GET /api/gaps/:namespace, a write token of it when the service has tokens): the
// gap groups (questions the docs did not cover or answers rated down, by topic), a chart of questions per day split
// into covered, not covered and rated down, and the most asked questions.
import { describeFailure, type ApiClient } from './api-client.js';
import type { DayCounts, GapsReport } from './api-types.js';
import { clear, h, plural } from './dom.js';
import type { NamespacePicker } from './namespace-picker.js';

export interface InsightsPanelElements {
  readonly form: HTMLFormElement;
  readonly since: HTMLSelectElement;
  readonly submit: HTMLButtonElement;
  readonly output: HTMLElement;
}

const svgNamespace = 'http://www.w3.org/2000/svg';

function svg<Tag extends keyof SVGElementTagNameMap>(tag: Tag, attributes: Record<string, string | number>): SVGElementTagNameMap[Tag] {
  const element = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

function dayChart(counts: readonly DayCounts[]): Element {
  const height = 160;
  const barWidth = 18;
  const gap = 6;
  // A week's width at least, so that a few days do not make a few giant bars.
  const width = Math.max(7, counts.length) * (barWidth + gap);
  const most = Math.max(1, ...counts.map((day) => day.questions));
  const chart = svg('svg', { class: 'day-chart', viewBox: `0 0 ${width} ${height + 18}`, role: 'img' });
  chart.setAttribute('aria-label', `Questions per day over ${plural(counts.length, 'day')}`);
  const bar = (kind: string, count: number, x: number, bottom: number, barWidth: number, label: string) => {
    const barHeight = (count / most) * height;
    const rect = svg('rect', { class: `bar-${kind}`, x, y: bottom - barHeight, width: barWidth, height: barHeight });
    const title = svg('title', {});
    title.textContent = label;
    rect.append(title);
    chart.append(rect);
    return bottom - barHeight;
  };
  counts.forEach((day, index) => {
    const x = index * (barWidth + gap);
    // Covered and not covered split the day's questions; the answers rated down (of either kind) are drawn over them.
    const top = day.covered === 0 ? height : bar('covered', day.covered, x, height, barWidth, `${day.day}: ${day.covered} covered`);
    if (day.not_covered > 0) bar('not-covered', day.not_covered, x, top, barWidth, `${day.day}: ${day.not_covered} not covered`);
    if (day.rated_down > 0)
      bar('rated-down', day.rated_down, x + barWidth / 4, height, barWidth / 2, `${day.day}: ${day.rated_down} rated down`);
    if (counts.length <= 14 || index % Math.ceil(counts.length / 14) === 0) {
      const label = svg('text', { class: 'day-label', x: x + barWidth / 2, y: height + 14, 'text-anchor': 'middle' });
      label.textContent = day.day.slice(5);
      chart.append(label);
    }
  });
  return chart;
}

function legend(): HTMLElement {
  return h(
    'ul',
    { className: 'chart-legend' },
    [
      ['covered', 'covered'],
      ['not-covered', 'not covered'],
      ['rated-down', 'rated down (of either)'],
    ].map(([kind, label]) => h('li', {}, [h('span', { className: `swatch swatch-${kind}` }), label ?? ''])),
  );
}

function gapGroups(report: GapsReport): HTMLElement {
  if (report.groups.length === 0)
    return h('p', {
      className: 'hint',
      text:
        report.log === 'full'
          ? 'No gaps: every question was covered and none was rated down.'
          : 'The question log keeps no questions (counts only).',
    });
  return h(
    'ol',
    { className: 'gap-groups' },
    report.groups.map((group) =>
      h('li', { className: 'gap-group' }, [
        h('div', { className: 'gap-head' }, [
          h('span', { className: 'gap-label', text: group.label }),
          h('span', { className: 'gap-count', text: plural(group.count, 'question') }),
        ]),
        h(
          'ul',
          { className: 'gap-questions' },
          group.questions.slice(0, 5).map((question) => h('li', { text: question })),
        ),
        group.pages.length === 0
          ? null
          : h('p', { className: 'gap-pages', text: `Closest pages: ${group.pages.map((page) => page.title).join(', ')}` }),
        ...group.comments.slice(0, 3).map((comment) => h('blockquote', { className: 'gap-comment', text: comment })),
      ]),
    ),
  );
}

export class InsightsPanel {
  constructor(
    private readonly api: ApiClient,
    private readonly picker: NamespacePicker,
    private readonly elements: InsightsPanelElements,
  ) {
    elements.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.show();
    });
  }

  private async show(): Promise<void> {
    const { output, submit, since } = this.elements;
    const namespace = this.picker.current();
    if (namespace === undefined) return;
    submit.disabled = true;
    output.setAttribute('aria-busy', 'true');
    try {
      this.render(await this.api.gaps(namespace, since.value));
    } catch (error) {
      clear(output);
      output.append(
        h('p', {
          className: 'turn-error',
          attributes: { role: 'alert' },
          text: `The report failed: ${describeFailure(error)}. It needs a write token of the namespace.`,
        }),
      );
    } finally {
      submit.disabled = false;
      output.removeAttribute('aria-busy');
    }
  }

  private render(report: GapsReport): void {
    const { totals } = report;
    clear(this.elements.output);
    this.elements.output.append(
      h('p', {
        className: 'insights-totals',
        text:
          `${plural(totals.questions, 'question')} in ${report.namespace}: ${totals.covered} covered, ${totals.not_covered} not covered, ` +
          `${totals.rated_up} rated up, ${totals.rated_down} rated down.`,
      }),
      h('div', { className: 'insights-grid' }, [
        h('section', { className: 'insights-block', attributes: { 'aria-label': 'Gaps' } }, [
          h('h3', { text: 'What the docs do not answer' }),
          gapGroups(report),
        ]),
        h('section', { className: 'insights-block', attributes: { 'aria-label': 'Questions per day' } }, [
          h('h3', { text: 'Questions per day' }),
          report.counts.length === 0 ? h('p', { className: 'hint', text: 'No questions yet.' }) : dayChart(report.counts),
          legend(),
          h('h3', { text: 'Most asked' }),
          h(
            'ol',
            { className: 'top-questions' },
            report.top_questions
              .slice(0, 10)
              .map((entry) =>
                h('li', {}, [h('span', { text: entry.question }), h('span', { className: 'top-count', text: `${entry.count}×` })]),
              ),
          ),
        ]),
      ]),
    );
  }
}
