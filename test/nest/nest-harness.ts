import 'reflect-metadata';
import type { INestApplicationContext, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { QueueModule, type Queue } from '../../lib/index.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';

/** forRoot options on the run's Redis with a prefix of its own. */
export function rootOptions(prefix = uniquePrefix('nest')) {
  return { connection: { url: redisUrl(), prefix }, workers: { shutdownTimeout: 5000 } };
}

/**
 * Compiles and inits a Nest app context for one test; close() closes every
 * app opened and checks verify() of the queues given to it first.
 */
export function nestHarness() {
  const apps: INestApplicationContext[] = [];
  const checked: Queue[] = [];

  afterEach(async () => {
    const problems = (await Promise.all(checked.splice(0).map((q) => q.verify()))).flat();
    await Promise.all(apps.splice(0).map((a) => a.close()));
    expect(problems).toEqual([]);
  });

  return {
    async app(metadata: ModuleMetadata): Promise<INestApplicationContext> {
      const app = await Test.createTestingModule(metadata).compile();
      await app.init();
      apps.push(app);
      return app;
    },
    /** Queues whose verify() must be empty after the test. */
    verifyAfter(...queues: Queue[]): void {
      checked.push(...queues);
    },
    /** Closes an app before the test ends (shutdown tests). */
    async close(app: INestApplicationContext): Promise<void> {
      const i = apps.indexOf(app);
      if (i >= 0) apps.splice(i, 1);
      await app.close();
    },
  };
}
