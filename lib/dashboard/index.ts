// The dashboard's public API (re-exported by lib/nest/index.ts).
export { QueueDashboardModule } from './dashboard.module.js';
export { DASHBOARD_OPTIONS as QUEUE_DASHBOARD_OPTIONS } from './options.js';
export type { QueueDashboardOptions, QueueDashboardExtras } from './options.js';
