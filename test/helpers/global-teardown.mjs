import { createClient } from 'redis';

export default async function globalTeardown() {
  const server = globalThis.__spoolRedis;
  if (!server) return;
  // What the run left on the shared server: every SCAN walk (verify(), listQueues) pays for it,
  // so a test file that leaves a large backlog there slows the files that run after it.
  const client = createClient({ url: server.url });
  try {
    await client.connect();
    const keys = await client.dbSize();
    if (keys > 50_000) process.stdout.write(`\nthe shared test Redis held ${keys} keys at the end of the run: keep large backlogs on a server of their own (test/helpers/harness.ts)\n`);
  } catch {
    // The count is advice; the server goes anyway.
  } finally {
    await client.close().catch(() => undefined);
  }
  await server.dispose();
}
