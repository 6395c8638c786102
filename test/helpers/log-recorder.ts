import type { SpoolLogger } from '../../lib/index.js';

export interface LogLine {
  readonly level: 'log' | 'warn' | 'error' | 'debug';
  readonly message: string;
  /** The error object passed with an error line (its stack would be printed). */
  readonly error?: unknown;
}

/** A SpoolLogger that keeps every line, for tests that count what a person would read. */
export function logRecorder(): { readonly lines: LogLine[]; readonly logger: SpoolLogger; at(level: LogLine['level']): string[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    logger: {
      log: (message) => void lines.push({ level: 'log', message }),
      warn: (message) => void lines.push({ level: 'warn', message }),
      debug: (message) => void lines.push({ level: 'debug', message }),
      error: (message, error) => void lines.push({ level: 'error', message, ...(error !== undefined && { error }) }),
    },
    at: (level) => lines.filter((l) => l.level === level).map((l) => l.message),
  };
}
