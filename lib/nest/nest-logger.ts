import { Logger } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';

/** Spool's logger interface over Nest's Logger, context 'Spool'. */
export function nestLogger(context = 'Spool'): SpoolLogger {
  const logger = new Logger(context);
  return {
    log: (message) => logger.log(message),
    warn: (message) => logger.warn(message),
    debug: (message) => logger.debug(message),
    error: (message, error) => {
      if (error === undefined) logger.error(message);
      else logger.error(message, error instanceof Error ? (error.stack ?? error.message) : String(error));
    },
  };
}
