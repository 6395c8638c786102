import { createSampleApp } from './create-app.js';
import { notifyForDemo } from './local-nats.js';
import { DASHBOARD_USER } from './dashboard-guard.js';
import { freePort, redisForDemo } from './local-redis.js';

/**
 * `npm run start:sample`: the sample app, left running on PORT (or a free
 * port) against REDIS_URL or a private redis-server. Ctrl-C shuts it down
 * gracefully.
 */
async function main(): Promise<void> {
  const redis = await redisForDemo();
  const notify = await notifyForDemo();
  // Signals are handled below rather than by enableShutdownHooks, so the private Redis stops after the app.
  const app = await createSampleApp({ redisUrl: redis.url, prefix: process.env.SPOOL_PREFIX ?? 'spool-sample', ...(notify.nats && { nats: notify.nats }) }, { shutdownHooks: false });
  const port = Number(process.env.PORT ?? (await freePort()));
  await app.listen(port, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  process.stdout.write(`Spool sample on ${url} (Redis ${redis.url}${notify.nats ? `, notify over NATS ${notify.nats.servers}` : ''}); try:\n`);
  process.stdout.write(`  curl -s -XPOST ${url}/emails -H 'content-type: application/json' -d '{"to":"ada@example.com","subject":"hi"}'\n`);
  process.stdout.write(`  curl -s ${url}/jobs/emails/<id>\n`);
  process.stdout.write(`Dashboard: ${url}/queues (user ${DASHBOARD_USER}, password from SPOOL_DASHBOARD_PASSWORD, default "spool")\n`);
  // SIGINT/SIGTERM: close the app (workers drain within shutdownTimeout), then stop our own Redis.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void app.close().then(() => notify.stop()).then(() => redis.stop()).then(() => process.exit(0));
    });
  }
}

main().catch((err) => {
  process.stderr.write(`sample failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
