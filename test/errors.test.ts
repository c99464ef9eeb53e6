// The error catalogue and the API documentation's error table (docs/api.md) stay in step.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { errorCatalogue, type ErrorCode } from '../src/errors.js';
import { packageRoot } from '../src/package-root.js';

const apiDocs = readFileSync(join(packageRoot, 'docs', 'api.md'), 'utf8');
const errorsStart = apiDocs.indexOf('## Errors');
const errorsSection = apiDocs.slice(errorsStart, apiDocs.indexOf('\n## ', errorsStart + 1));

describe('error catalogue', () => {
  it('documents every code in docs/api.md, with its status when it ends a request', () => {
    const tableRows = new Map(
      [...errorsSection.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1] as string, Number(match[2])]),
    );
    for (const [code, entry] of Object.entries(errorCatalogue) as [ErrorCode, { status: number }][]) {
      const documented = tableRows.get(code);
      if (documented !== undefined) assert.equal(documented, entry.status, `${code} status`);
      else assert.match(errorsSection, new RegExp(`\`${code}\``), `${code} is documented`);
    }
    for (const code of tableRows.keys()) assert.ok(code in errorCatalogue, `docs/api.md lists ${code}, which the catalogue lacks`);
  });
});
