// What the registered-sources tests share: the wire shapes they read and a JSON reader that checks the status.
import assert from 'node:assert/strict';

export interface RefreshSummary {
  trigger: string;
  checked: number;
  unchanged: number;
  updated: number;
  added: number;
  removed: number;
  failed: { url: string; code: string; message: string }[];
}

export interface SourceAnswer {
  id: string;
  kind: string;
  url: string;
  every: string | null;
  last_refresh: RefreshSummary | null;
  next_run_at: string | null;
  webhook: { path: string; secret_set: boolean };
}

/** The answer's JSON, once its status is `status` (the body is shown when it is not). */
export async function json<T>(response: Promise<Response>, status = 200): Promise<T> {
  const answer = await response;
  assert.equal(answer.status, status, await answer.clone().text());
  return (await answer.json()) as T;
}

/** A refresh's counts, failures counted, to compare whole. */
export function refreshCounts(summary: RefreshSummary | null | undefined) {
  return (
    summary && {
      checked: summary.checked,
      unchanged: summary.unchanged,
      updated: summary.updated,
      added: summary.added,
      removed: summary.removed,
      failed: summary.failed.length,
    }
  );
}
