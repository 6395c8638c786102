import 'reflect-metadata';
import { Injectable, Module, type CanActivate, type DynamicModule, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { QueueDashboardModule, QueueModule, type QueueDashboardOptions } from '../../lib/index.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';

/** Lets a request in when it carries `x-user`; puts that user on the request. */
@Injectable()
export class HeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: { username: string } }>();
    const user = req.headers['x-user'];
    if (!user) return false;
    req.user = { username: user };
    return true;
  }
}

/** A host app with two queues and the dashboard mounted as given. */
export function appModule(dashboard: DynamicModule, prefix = uniquePrefix('dash')): DynamicModule {
  @Module({})
  class HostModule {}
  return {
    module: HostModule,
    imports: [QueueModule.forRoot({ connection: { url: redisUrl(), prefix } }), QueueModule.registerQueue('mail', 'billing'), dashboard],
  };
}

export async function createHost(options: QueueDashboardOptions & { path?: string }, platform: 'express' | 'fastify' = 'express'): Promise<INestApplication> {
  const module = appModule(QueueDashboardModule.forRoot(options));
  const app = platform === 'fastify' ? await NestFactory.create(module, new FastifyAdapter(), { logger: ['error'] }) : await NestFactory.create(module, { logger: ['error'] });
  await app.init();
  if (platform === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  return app;
}

/** The CSRF cookie and the page's token from a rendered page. */
export function csrfOf(res: { headers: Record<string, unknown>; text: string }): { cookie: string; token: string } {
  const raw = res.headers['set-cookie'];
  const cookie = (Array.isArray(raw) ? (raw as string[]) : [String(raw)]).map((c) => c.split(';')[0]!).join('; ');
  const token = /<meta name="spool-csrf" content="([^"]*)">/.exec(res.text)?.[1] ?? '';
  return { cookie, token };
}
