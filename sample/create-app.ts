import 'reflect-metadata';
import { ValidationPipe, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SpoolExceptionFilter } from '../lib/index.js';
import { AppModule, type SampleConfig } from './app.module.js';

/** The sample's Nest HTTP app, not yet listening (the demo, start script and e2e test share it). */
export async function createSampleApp(
  config: SampleConfig,
  { logLevels, shutdownHooks = true }: { readonly logLevels?: LogLevel[]; readonly shutdownHooks?: boolean } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRedis(config), logLevels ? { logger: logLevels } : {});
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
  // Spool errors become HTTP answers: a queue's DTO -> 400, a full queue or tenant -> 503 / 429 with Retry-After, Redis down -> 503.
  app.useGlobalFilters(new SpoolExceptionFilter(app.getHttpAdapter()));
  // SIGTERM / SIGINT: workers stop claiming, running jobs finish within shutdownTimeout, then Redis closes.
  if (shutdownHooks) app.enableShutdownHooks();
  return app;
}
