// CommonJS: a producer and a worker on spool/engine, with no @nestjs package installed.
const { Queue, RedisStore, Worker } = require('spool/engine');

async function main() {
  const store = new RedisStore({ url: process.env.REDIS_URL });
  await store.connect();
  const name = `${process.env.SPOOL_CONSUMER_QUEUE}-cjs`;
  const queue = new Queue(name, { store });
  const worker = new Worker(name, async (job) => `hello ${job.data.name} from commonjs`, { store });
  const job = await queue.add('greet', { name: 'ada' });
  const result = await job.waitUntilFinished({ timeout: 15_000 });
  await worker.close();
  await store.disconnect();
  console.log(JSON.stringify({ result }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
