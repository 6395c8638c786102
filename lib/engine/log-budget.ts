import type { SpoolLogger } from '../logger.js';

/** A level of SpoolLogger. */
export type LogLevel = 'error' | 'warn' | 'log' | 'debug';

export function writeLine(logger: SpoolLogger, at: LogLevel, message: string): void {
  if (at === 'error') logger.error(message);
  else if (at === 'warn') logger.warn(message);
  else if (at === 'log') logger.log(message);
  else logger.debug?.(message);
}

/** One kind of line (e.g. dead letters of one queue and reason) within its interval. */
interface Window {
  readonly opened: number;
  readonly timer: NodeJS.Timeout;
  readonly level: LogLevel;
  readonly summary: (held: number, seconds: string) => string;
  shown: number;
  held: number;
}

export interface LineKind {
  /** Lines of one kind share a budget: e.g. `dead\nemails\nerror`. */
  readonly key: string;
  /** Lines written per interval before the rest are only counted. */
  readonly lines: number;
  readonly intervalMs: number;
  readonly level: LogLevel;
  /** The line that stands for the held ones: "+9,812 more dead letters on queue "emails" (reason error) in the last 30 s". */
  readonly summary: (held: number, seconds: string) => string;
}

/**
 * What one logger is told about a flood of like lines: the first few per
 * interval as they come, then one summary line for the rest, so a downstream
 * that is down for an hour gives a few hundred lines, not one per job. The
 * summary comes when the interval ends (or at flush()), only if lines were
 * held; the next line after that opens a new interval. The budget belongs to
 * the logger, so every worker that writes to it shares it.
 */
export class LineBudget {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly logger: SpoolLogger) {}

  /** Writes `message`, or counts it into its kind's summary when the kind's lines for this interval are spent. */
  write(kind: LineKind, message: string): void {
    let window = this.windows.get(kind.key);
    if (!window) {
      const timer = setTimeout(() => this.close(kind.key), kind.intervalMs);
      timer.unref();
      window = { opened: Date.now(), timer, level: kind.level, summary: kind.summary, shown: 0, held: 0 };
      this.windows.set(kind.key, window);
    }
    if (window.shown < kind.lines) {
      window.shown += 1;
      writeLine(this.logger, kind.level, message);
    } else {
      window.held += 1;
    }
  }

  /** Ends the intervals of the kinds `matches` selects now (a worker closing): their summaries are written at once. */
  flush(matches: (key: string) => boolean = () => true): void {
    for (const key of [...this.windows.keys()]) if (matches(key)) this.close(key);
  }

  private close(key: string): void {
    const window = this.windows.get(key);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(key);
    if (window.held > 0) writeLine(this.logger, window.level, window.summary(window.held, elapsed(Date.now() - window.opened)));
  }
}

const budgets = new WeakMap<SpoolLogger, LineBudget>();

/** The budget of lines written to `logger` (one per logger, shared by whoever writes to it). */
export function lineBudget(logger: SpoolLogger): LineBudget {
  let budget = budgets.get(logger);
  if (!budget) budgets.set(logger, (budget = new LineBudget(logger)));
  return budget;
}

/** 30000 -> "30 s", 1234 -> "1.2 s". */
function elapsed(ms: number): string {
  const s = Math.round(ms / 100) / 10;
  return `${s} s`;
}
