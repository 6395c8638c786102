/**
 * Where Spool reports what it cannot throw to a caller (a failed renewal, a
 * listener that threw, a reconnect). The Nest module passes Nest's Logger;
 * the engine alone writes to stderr.
 */
export interface SpoolLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
  /** Detail most people leave off (a retried attempt); optional. */
  debug?(message: string): void;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

export const stderrLogger: SpoolLogger = {
  log: () => undefined,
  debug: () => undefined,
  warn: (message) => process.stderr.write(`[spool] ${message}\n`),
  error: (message, error) =>
    process.stderr.write(`[spool] ${message}${error === undefined ? '' : `\n${describe(error)}`}\n`),
};
