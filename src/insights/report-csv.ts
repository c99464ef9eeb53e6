// The gaps report as CSV (RFC 4180): one row per gap group, for a spreadsheet or a docs team's tracker. A field that a
// spreadsheet would run as a formula (=, +, -, @ first) is quoted with a leading apostrophe.
import type { GapsReport } from './gaps-report.js';

const columns = ['label', 'count', 'questions', 'closest_pages', 'comments'];

function field(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Several values in one cell: a line each, so they stay readable in the cell. */
const joined = (values: readonly string[]) => values.join('\n');

export function gapsReportCsv(report: GapsReport): string {
  const rows = report.groups.map((group) =>
    [
      group.label,
      group.count,
      joined(group.questions),
      joined(group.pages.map((page) => `${page.title} (${page.origin})`)),
      joined(group.comments),
    ]
      .map(field)
      .join(','),
  );
  return `${[columns.join(','), ...rows].join('\r\n')}\r\n`;
}
