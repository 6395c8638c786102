import { SpoolError } from '../common/errors.js';
import { InvalidArgumentError } from '../engine/errors.js';

/** Exit codes: 0 done, 1 the operation failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A failure the CLI reports as one line on stderr, with its exit code; a SpoolError like every error Spool throws on purpose. */
export class CliError extends SpoolError {
  constructor(message: string, readonly exitCode: number = EXIT_FAILED) {
    super(message);
  }
}

/** A wrong command line (missing or conflicting arguments): exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

/**
 * The line an error is reported with, and its exit code. Never a stack: an
 * engine argument error is the operator's input (exit 2); anything else
 * failed (exit 1) and says why in its message.
 */
export function describeFailure(err: unknown): { message: string; exitCode: number } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof InvalidArgumentError) return { message: err.message, exitCode: EXIT_USAGE };
  if (err instanceof Error) return { message: err.message || err.name, exitCode: EXIT_FAILED };
  return { message: String(err), exitCode: EXIT_FAILED };
}
