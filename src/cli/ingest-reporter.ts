// Shows ingest progress: a live bar (cli-progress) when stdout is a terminal, one plain line per source otherwise.
import progress from 'cli-progress';
import type { CommandContext } from './command-options.js';
import { outcomeLine, progressLine, type SourceOutcome, type StatusCounts } from './ingest-progress.js';

/** The running totals, whichever way they are shown. */
export class IngestTally {
  readonly counts: StatusCounts = { saved: 0, updated: 0, skipped: 0, failed: 0, removed: 0 };
  /** Chunks written by saved and updated documents. */
  chunks = 0;
  done = 0;
  /** File names of the stored documents that updates replaced, in the order reported. */
  readonly replaced: string[] = [];

  add(outcome: SourceOutcome): void {
    this.counts[outcome.status]++;
    this.done++;
    if (outcome.replaced !== undefined) this.replaced.push(outcome.replaced.file);
    if (outcome.status === 'saved' || outcome.status === 'updated') this.chunks += outcome.chunks ?? 0;
  }
}

export interface IngestReporter {
  /** Starts the display with the sources decided locally (refused before any request). */
  begin(total: number, decided: readonly SourceOutcome[]): void;
  outcome(outcome: SourceOutcome): void;
  /** A message about the run (waiting on a rate limit, say), not about one source. */
  notice(message: string): void;
  /** Leaves the terminal as it found it; safe to call twice. */
  end(): void;
}

class PlainReporter implements IngestReporter {
  constructor(
    private readonly context: CommandContext,
    private readonly tally: IngestTally,
  ) {}

  begin(_total: number, decided: readonly SourceOutcome[]): void {
    for (const outcome of decided) this.outcome(outcome);
  }

  outcome(outcome: SourceOutcome): void {
    this.tally.add(outcome);
    this.context.stdout.write(`${outcomeLine(outcome)}\n`);
  }

  notice(message: string): void {
    this.context.stderr.write(`${message}\n`);
  }

  end(): void {}
}

class TerminalReporter implements IngestReporter {
  private bars: progress.MultiBar | undefined;
  private bar: progress.SingleBar | undefined;
  private total = 0;
  private doneAtStart = 0;
  private startedAt = 0;

  constructor(
    private readonly context: CommandContext,
    private readonly tally: IngestTally,
    private readonly now: () => number,
  ) {}

  begin(total: number, decided: readonly SourceOutcome[]): void {
    this.total = total;
    this.doneAtStart = decided.length;
    this.bars = new progress.MultiBar({
      stream: this.context.stdout,
      fps: 10,
      // Interrupts are handled by the command; the library's own handler would keep the process alive.
      gracefulExit: false,
      hideCursor: false,
      clearOnComplete: false,
      format: (_options, params) =>
        progressLine(
          {
            filesDone: this.tally.done,
            filesDoneAtStart: this.doneAtStart,
            filesTotal: this.total,
            chunks: this.tally.chunks,
            elapsedMs: this.now() - this.startedAt,
          },
          params.maxWidth,
        ),
    });
    this.bar = this.bars.create(total, 0);
    for (const outcome of decided) this.outcome(outcome);
    this.startedAt = this.now();
  }

  outcome(outcome: SourceOutcome): void {
    this.tally.add(outcome);
    // Failures, replacements, removals and local decisions are worth a line above the bar; other stored documents show
    // in its counts.
    const routine = (outcome.status === 'saved' || outcome.status === 'skipped') && outcome.reason === undefined;
    if (!routine || outcome.warning !== undefined) this.bars?.log(`${outcomeLine(outcome)}\n`);
    // A crawl finds more pages than the URLs it started from.
    if (this.tally.done > this.total) this.bar?.setTotal((this.total = this.tally.done));
    this.bar?.update(this.tally.done);
  }

  notice(message: string): void {
    this.bars?.log(`${message}\n`);
  }

  end(): void {
    if (this.bars === undefined) return;
    // stop() draws the bars one last time but does not flush lines logged since the last redraw.
    this.bars.update();
    this.bars.stop();
    this.bars = undefined;
  }
}

export function createReporter(context: CommandContext, tally: IngestTally, now: () => number = Date.now): IngestReporter {
  return context.stdout.isTTY === true ? new TerminalReporter(context, tally, now) : new PlainReporter(context, tally);
}
