import { Inject, Injectable, type CanActivate, type ExecutionContext, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { DASHBOARD_OPTIONS, type QueueDashboardOptions } from './options.js';

/**
 * Every page and action goes through the guard of the options: a class is
 * taken from the app's providers when it is one, else created with its
 * dependencies; an instance is used as is.
 */
@Injectable()
export class DashboardAccess implements CanActivate, OnModuleInit {
  private guard: CanActivate | undefined;

  constructor(
    @Inject(DASHBOARD_OPTIONS) private readonly options: QueueDashboardOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onModuleInit(): Promise<void> {
    const g = this.options.guard;
    if (g === undefined || typeof g !== 'function') {
      this.guard = g;
      return;
    }
    const type = g as Type<CanActivate>;
    try {
      this.guard = this.moduleRef.get(type, { strict: false });
    } catch {
      this.guard = await this.moduleRef.create(type);
    }
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> | Observable<boolean> {
    return this.guard ? this.guard.canActivate(context) : true;
  }
}
