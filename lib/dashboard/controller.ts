import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards, type Type } from '@nestjs/common';
import { DashboardAccess } from './access.js';
import type { QueueQuery } from './reader.js';
import { DashboardService, type DashboardRequest, type DashboardResponse } from './service.js';

/**
 * The dashboard's routes under `path` (a controller class per mount, since
 * Nest reads the path from the class). Plain handlers returning strings, so
 * they run on Express and Fastify alike; nothing changes state on GET.
 */
export function dashboardController(path: string): Type<unknown> {
  @Controller(path)
  @UseGuards(DashboardAccess)
  class QueueDashboardController {
    constructor(@Inject(DashboardService) private readonly pages: DashboardService) {}

    @Get('_assets/:file')
    asset(@Param('file') file: string, @Res({ passthrough: true }) res: DashboardResponse): string {
      return this.pages.asset(file, res);
    }

    @Get()
    overview(@Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.overview(req, res);
    }

    @Get('_workers')
    workers(@Query('queue') queue: unknown, @Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.workers(typeof queue === 'string' && queue.length > 0 ? queue : undefined, req, res);
    }

    @Get('_switch')
    switchTo(@Query('to') to: unknown, @Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.switchTo(typeof to === 'string' ? to : undefined, req, res);
    }

    @Get('_redis')
    redis(@Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.redis(req, res);
    }

    @Get(':connection/:queue/schedulers')
    schedulers(@Param('connection') connection: string, @Param('queue') queue: string, @Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.schedulers(connection, queue, req, res);
    }

    @Get(':connection/:queue/metrics')
    metrics(@Param('connection') connection: string, @Param('queue') queue: string, @Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.metrics(connection, queue, req, res);
    }

    @Get(':connection/:queue')
    queue(
      @Param('connection') connection: string,
      @Param('queue') queue: string,
      @Query() q: Record<string, unknown>,
      @Req() req: DashboardRequest,
      @Res({ passthrough: true }) res: DashboardResponse,
    ): Promise<string> {
      return this.pages.queue(connection, queue, pickQuery(q), req, res);
    }

    @Get(':connection/:queue/jobs/:id')
    job(@Param('connection') connection: string, @Param('queue') queue: string, @Param('id') id: string, @Req() req: DashboardRequest, @Res({ passthrough: true }) res: DashboardResponse): Promise<string> {
      return this.pages.job(connection, queue, id, req, res);
    }

    @Post(':connection/:queue/actions')
    @HttpCode(200)
    act(@Param('connection') connection: string, @Param('queue') queue: string, @Body() body: unknown, @Req() req: DashboardRequest): Promise<{ message: string }> {
      return this.pages.act(connection, queue, body, req);
    }
  }
  return QueueDashboardController;
}

/** Only single string values of the known query fields (a repeated parameter arrives as an array). */
function pickQuery(q: Record<string, unknown>): QueueQuery & { id?: string } {
  const out: Record<string, string> = {};
  for (const key of ['state', 'name', 'error', 'cursor', 'offset', 'id', 'sort']) {
    const v = q[key];
    if (typeof v === 'string' && v.length > 0 && v.length <= 1024) out[key] = v;
  }
  return out;
}
