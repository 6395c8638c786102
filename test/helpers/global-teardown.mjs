export default async function globalTeardown() {
  await globalThis.__spoolRedis?.dispose();
}
