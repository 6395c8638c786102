import 'reflect-metadata';
import { Injectable, Module, type CanActivate, type DynamicModule, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { QueueDashboardModule, QueueModule } from '../../lib/index.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';

const process = { env: { REDIS_URL: redisUrl(), DASHBOARD_CSRF_SECRET: 'a-secret-of-32-characters-or-so!' } };

/** docs/operations/dashboard.md "Dashboard" example, as written there (the URL comes from the harness, a prefix keeps the test's keys apart). */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ user?: { roles?: string[] } }>();
    return req.user?.roles?.includes('ops') ?? false; // put by your auth middleware; actions are logged with it
  }
}

function appModule(dashboard: DynamicModule): DynamicModule {
  @Module({
    imports: [
      QueueModule.forRoot({ connection: { url: process.env.REDIS_URL, prefix: uniquePrefix('readme-dash') } }),
      QueueModule.registerQueue('emails', 'orders'),
      dashboard,
    ],
  })
  class AppModule {}
  return { module: AppModule };
}

async function start(dashboard: DynamicModule, roles: string[]): Promise<INestApplication> {
  const app = await NestFactory.create(appModule(dashboard), { logger: ['error'] });
  app.use((req: { user?: unknown }, _res: unknown, next: () => void) => {
    req.user = { name: 'ada', roles }; // the app's auth middleware
    next();
  });
  await app.init();
  return app;
}

describe('README dashboard example', () => {
  it('forRoot at /queues behind AdminGuard', async () => {
    const app = await start(QueueDashboardModule.forRoot({ path: '/queues', guard: AdminGuard }), ['ops']);
    try {
      const page = await request(app.getHttpServer()).get('/queues').expect(200);
      expect(page.text).toContain('>emails</a>');
      expect(page.text).toContain('>orders</a>');
    } finally {
      await app.close();
    }
    const outsider = await start(QueueDashboardModule.forRoot({ path: '/queues', guard: AdminGuard }), []);
    try {
      await request(outsider.getHttpServer()).get('/queues').expect(403);
    } finally {
      await outsider.close();
    }
  });

  it('forRootAsync with the path beside the factory', async () => {
    const dashboard = QueueDashboardModule.forRootAsync({
      path: '/ops/queues',
      useFactory: () => ({ guard: AdminGuard, refreshSeconds: 10, csrfSecret: process.env.DASHBOARD_CSRF_SECRET }),
    });
    const app = await start(dashboard, ['ops']);
    try {
      const page = await request(app.getHttpServer()).get('/ops/queues/default/emails').expect(200);
      expect(page.text).toContain('<meta name="spool-refresh" content="10">');
    } finally {
      await app.close();
    }
  });
});
