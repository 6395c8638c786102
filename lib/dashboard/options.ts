import { ConfigurableModuleBuilder, type CanActivate, type Type } from '@nestjs/common';
import { assertKnownKeys, assertPlainObject, describe } from '../engine/options.js';
import { SpoolBootstrapError } from '../nest/errors.js';

/** What QueueDashboardModule.forRoot() / forRootAsync() accept. */
export interface QueueDashboardOptions {
  /** Nest guard every page and action goes through (a class, resolved from the app's providers or created, or an instance). */
  readonly guard?: Type<CanActivate> | CanActivate;
  /** Pages only, no actions. Without a guard the dashboard refuses to mount unless readOnly is true. */
  readonly readOnly?: boolean;
  /** Whose queues are shown: connection names of QueueModule.forRoot. Default: every configured connection. */
  readonly connections?: readonly string[];
  /** Seconds between live refreshes of a page (0 = off). Default 5. */
  readonly refreshSeconds?: number;
  /** Key that signs CSRF tokens. Default: random per process; set it when several instances serve one dashboard. */
  readonly csrfSecret?: string;
}

/** Extra of forRoot/forRootAsync: where the pages mount, known when the module is defined (routes are static). */
export interface QueueDashboardExtras {
  /** URL path of the dashboard. Default '/queues'. */
  readonly path?: string;
}

export const DEFAULT_DASHBOARD_PATH = '/queues';

/**
 * Nest's configurable-module parts for QueueDashboardModule.forRoot; DASHBOARD_OPTIONS is exported as
 * `QUEUE_DASHBOARD_OPTIONS`, the injection token of the resolved `QueueDashboardOptions`.
 */
export const {
  ConfigurableModuleClass: DashboardModuleClass,
  MODULE_OPTIONS_TOKEN: DASHBOARD_OPTIONS,
  OPTIONS_TYPE: DASHBOARD_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DASHBOARD_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<QueueDashboardOptions>({ moduleName: 'SpoolDashboard' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createDashboardOptions')
  .setExtras<QueueDashboardExtras>({ path: DEFAULT_DASHBOARD_PATH }, (definition) => definition)
  .build();

const KNOWN = ['guard', 'readOnly', 'connections', 'refreshSeconds', 'csrfSecret', 'path'];
const FIELD = 'QueueDashboardModule options';

/** Checks the options at bootstrap; mounting actions without a guard is refused here. */
export function validateDashboardOptions(value: unknown): asserts value is QueueDashboardOptions {
  try {
    assertPlainObject(value, FIELD);
    assertKnownKeys(value, KNOWN, FIELD);
  } catch (err) {
    throw new SpoolBootstrapError(FIELD, `are invalid: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { guard, readOnly, connections, refreshSeconds, csrfSecret } = value;
  if (readOnly !== undefined && typeof readOnly !== 'boolean') throw new SpoolBootstrapError(`${FIELD}.readOnly`, `must be a boolean, got ${describe(readOnly)}`);
  if (guard !== undefined && typeof guard !== 'function' && !(typeof guard === 'object' && guard !== null && typeof (guard as CanActivate).canActivate === 'function')) {
    throw new SpoolBootstrapError(`${FIELD}.guard`, `must be a guard class or an object with canActivate(), got ${describe(guard)}`);
  }
  if (guard === undefined && readOnly !== true) {
    throw new SpoolBootstrapError(
      'QueueDashboardModule',
      'mounts actions (redrive, cancel, purge...) and has no guard',
      'pass guard: YourAuthGuard (a Nest CanActivate that checks the user) to QueueDashboardModule.forRoot({ path, guard }), or readOnly: true for pages without actions',
    );
  }
  if (connections !== undefined && (!Array.isArray(connections) || connections.some((c) => typeof c !== 'string'))) {
    throw new SpoolBootstrapError(`${FIELD}.connections`, `must be an array of connection names, got ${describe(connections)}`);
  }
  if (refreshSeconds !== undefined && (typeof refreshSeconds !== 'number' || !Number.isFinite(refreshSeconds) || refreshSeconds < 0)) {
    throw new SpoolBootstrapError(`${FIELD}.refreshSeconds`, `must be a number of seconds >= 0, got ${describe(refreshSeconds)}`);
  }
  if (csrfSecret !== undefined && (typeof csrfSecret !== 'string' || csrfSecret.length < 16)) {
    throw new SpoolBootstrapError(`${FIELD}.csrfSecret`, 'must be a string of at least 16 characters');
  }
}

/** '/queues', 'queues/', '/' -> '/queues', '/'. */
export function normalizePath(path: unknown): string {
  if (typeof path !== 'string' || !/^\/?[A-Za-z0-9._~\-/]*$/.test(path)) {
    throw new SpoolBootstrapError('QueueDashboardModule path', `must be a URL path such as '/queues', got ${describe(path)}`);
  }
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return `/${trimmed}`;
}
