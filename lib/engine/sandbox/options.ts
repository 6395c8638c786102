import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkOptions, describe, positiveInteger } from '../../common/validation.js';
import { InvalidArgumentError } from '../errors.js';
import type { SandboxRunner } from './sandbox.js';

/** How a Worker given a handler file runs it (Worker options.sandbox). */
export interface SandboxOptions {
  /** 'threads' (default): worker threads of this process. 'processes': child processes, so even a crash in native code stays inside. */
  readonly runner?: SandboxRunner;
  /** Heap limit of each sandbox, in MB (resourceLimits for threads, --max-old-space-size for processes); past it the attempt fails. Default: Node's. */
  readonly maxMemoryMb?: number;
  /** How long a handler has to stop once job.signal aborted (cancel, timeout, shutdown) before its sandbox is stopped, in ms. Default 2,000. */
  readonly abortGraceMs?: number;
}

export type ResolvedSandboxOptions = Required<Omit<SandboxOptions, 'maxMemoryMb'>> & { readonly maxMemoryMb?: number };

export const SANDBOX_KEYS: readonly (keyof SandboxOptions)[] = ['runner', 'maxMemoryMb', 'abortGraceMs'];

export function resolveSandboxOptions(value: unknown, field: string, known: readonly string[] = SANDBOX_KEYS): ResolvedSandboxOptions {
  const options = value ?? {};
  checkOptions<SandboxOptions>(options, known as (keyof SandboxOptions)[], field);
  const runner = options.runner ?? 'threads';
  if (runner !== 'threads' && runner !== 'processes') {
    throw new InvalidArgumentError(`${field}.runner`, `must be 'threads' or 'processes', got ${describe(runner)}`);
  }
  return {
    runner,
    ...(options.maxMemoryMb !== undefined && { maxMemoryMb: positiveInteger(options.maxMemoryMb, `${field}.maxMemoryMb`) }),
    abortGraceMs: options.abortGraceMs === undefined ? 2_000 : positiveInteger(options.abortGraceMs, `${field}.abortGraceMs`),
  };
}

/**
 * The handler module's URL: a file: URL, or a path (a relative one from
 * the current directory). It must exist now, so a typo fails at startup
 * rather than on every job.
 */
export function handlerFileUrl(file: unknown, field: string): URL {
  let url: URL;
  if (file instanceof URL) url = file;
  else if (typeof file === 'string' && file.startsWith('file:')) url = new URL(file);
  else if (typeof file === 'string' && file.length > 0) url = pathToFileURL(isAbsolute(file) ? file : resolve(file));
  else throw new InvalidArgumentError(field, `must be a file path or a file: URL of the handler module, got ${describe(file)}`);
  if (url.protocol !== 'file:') throw new InvalidArgumentError(field, `must be a file: URL, got ${url.protocol} (${url.href})`);
  const path = fileURLToPath(url);
  if (!existsSync(path)) {
    throw new InvalidArgumentError(field, `names ${path}, which does not exist`, 'pass the compiled module (.js, .mjs or .cjs), by an absolute path (join(__dirname, "resize.js")) or a file: URL');
  }
  return url;
}
