import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { QueueModuleOptions } from './module-options.js';

/** useClass / useExisting providers implement this. */
export interface SpoolOptionsFactory {
  createSpoolOptions(): QueueModuleOptions | Promise<QueueModuleOptions>;
}

/** Extra forRootAsync field: named connections to expose with `@InjectConnection(name)` (forRoot finds them itself). */
export interface QueueModuleExtras {
  readonly connectionNames?: readonly string[];
}

/**
 * Nest's configurable-module parts for QueueModule.forRoot/forRootAsync; MODULE_OPTIONS_TOKEN is
 * exported as `QUEUE_MODULE_OPTIONS`, the injection token of the resolved `QueueModuleOptions`.
 */
export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE, ASYNC_OPTIONS_TYPE } = new ConfigurableModuleBuilder<QueueModuleOptions>({
  moduleName: 'Spool',
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createSpoolOptions')
  .setExtras<QueueModuleExtras>({ connectionNames: [] }, (definition) => definition)
  .build();
