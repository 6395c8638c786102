import { Catch, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { PayloadTooLargeError, QueueFullError, RateLimitedError, SpoolError } from '../engine/errors.js';
import { DuplicateJobIdError, UnknownQueueError } from '../engine/flow-errors.js';
import { RedisOutOfMemoryError, RedisUnavailableError, StoreError } from '../store/errors.js';
import { PostgresConflictError, PostgresUnavailableError } from '../postgres/errors.js';
import { QueueValidationError } from './errors.js';

/** The HTTP answer for a Spool error: status, JSON body and, for "come back later", Retry-After in seconds. */
export interface SpoolHttpError {
  readonly status: number;
  readonly body: { readonly statusCode: number; readonly error: string; readonly message: string | readonly string[]; readonly [extra: string]: unknown };
  readonly retryAfter?: number;
}

/** Seconds a client is told to wait when Redis is down or a queue is full. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * Maps the errors queue.add() and friends throw to HTTP; undefined for the
 * rest (a programming error: Nest's default 500 handles it).
 * - QueueValidationError: 400, `message` lists every constraint;
 * - PayloadTooLargeError: 413; DuplicateJobIdError: 409;
 * - RateLimitedError, and QueueFullError of a group (that tenant's own
 *   maxWaitingPerGroup): 429 with Retry-After;
 * - QueueFullError of the queue, RedisUnavailableError, RedisOutOfMemoryError,
 *   PostgresUnavailableError, PostgresConflictError: 503 with Retry-After;
 * - UnknownQueueError: 500 with its message (the app's setup is wrong).
 */
export function spoolHttpError(error: unknown, retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS): SpoolHttpError | undefined {
  const answer = (status: number, name: string, message: string | readonly string[], extra: Record<string, unknown> = {}, retryAfter?: number): SpoolHttpError => ({
    status,
    body: { statusCode: status, error: name, message, ...extra },
    ...(retryAfter !== undefined && { retryAfter }),
  });
  if (error instanceof QueueValidationError) {
    return answer(400, 'Bad Request', error.constraints, { queue: error.queue, jobName: error.jobName });
  }
  if (error instanceof PayloadTooLargeError) return answer(413, 'Payload Too Large', error.message, { limit: error.limit });
  if (error instanceof DuplicateJobIdError) return answer(409, 'Conflict', error.message);
  if (error instanceof RateLimitedError) return answer(429, 'Too Many Requests', error.message, {}, Math.max(1, Math.ceil(error.retryAfter / 1000)));
  if (error instanceof QueueFullError) {
    const extra = { queue: error.queue, limit: error.limit, ...(error.group !== undefined && { group: error.group }) };
    return error.group === undefined
      ? answer(503, 'Service Unavailable', error.message, extra, retryAfterSeconds)
      : answer(429, 'Too Many Requests', error.message, extra, retryAfterSeconds);
  }
  const passing = error instanceof PostgresUnavailableError || error instanceof PostgresConflictError;
  if (error instanceof RedisUnavailableError || error instanceof RedisOutOfMemoryError || passing) {
    return answer(503, 'Service Unavailable', 'the job store is unavailable; retry later', {}, retryAfterSeconds);
  }
  if (error instanceof UnknownQueueError) return answer(500, 'Internal Server Error', error.message);
  return undefined;
}

/**
 * Turns Spool errors into HTTP answers a client can act on (see
 * spoolHttpError), instead of a bare 500. Other errors go to Nest's default.
 *
 * @example
 * app.useGlobalFilters(new SpoolExceptionFilter(app.getHttpAdapter()));
 * // or as a provider: { provide: APP_FILTER, useClass: SpoolExceptionFilter }
 */
@Catch(SpoolError, StoreError)
export class SpoolExceptionFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('Spool');
  /** Retry-After for 503s and a full group; override in a subclass to change it. */
  protected readonly retryAfterSeconds: number = DEFAULT_RETRY_AFTER_SECONDS;

  override catch(exception: unknown, host: ArgumentsHost): void {
    const mapped = host.getType() === 'http' ? spoolHttpError(exception, this.retryAfterSeconds) : undefined;
    const adapter = this.applicationRef ?? this.httpAdapterHost?.httpAdapter;
    if (!mapped || !adapter) {
      super.catch(exception, host);
      return;
    }
    if (mapped.status >= 500 && !(exception instanceof RedisUnavailableError)) {
      // Redis outages are logged once by the store; anything else here is worth a line.
      this.logger.error(`HTTP ${mapped.status}: ${exception instanceof Error ? exception.message : String(exception)}`);
    }
    const response: unknown = host.switchToHttp().getResponse();
    if (mapped.retryAfter !== undefined) adapter.setHeader(response, 'Retry-After', String(mapped.retryAfter));
    adapter.reply(response, mapped.body, mapped.status);
  }
}
