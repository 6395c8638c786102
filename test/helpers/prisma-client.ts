import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/** The part of a generated PrismaClient these tests use: an `orders` model, raw SQL, interactive transactions. */
export interface OrderRow {
  readonly id: number;
  readonly item: string;
}
export interface PrismaTx {
  readonly order: { create(args: { data: { item: string } }): Promise<OrderRow>; count(): Promise<number> };
  $queryRawUnsafe(query: string, ...values: unknown[]): Promise<unknown>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}
export interface TestPrismaClient extends PrismaTx {
  $transaction<T>(body: (tx: PrismaTx) => Promise<T>): Promise<T>;
  $disconnect(): Promise<void>;
}

/** A model `Order` on table `orders` of the PostgreSQL schema given to the adapter. */
const SCHEMA = `
generator client {
  provider = "prisma-client"
  output   = "./client"
}

datasource db {
  provider = "postgresql"
}

model Order {
  id   Int    @id @default(autoincrement())
  item String

  @@map("orders")
}
`;

/**
 * Runs `prisma generate` (Prisma 7: a TypeScript client and a WASM query
 * compiler, no Rust query engine) into a fresh dir under test-output/ (it
 * must sit inside the repo so the client resolves @prisma/client, and outside
 * node_modules so ts-jest compiles it), offline, and returns a factory of
 * clients on `url` through @prisma/adapter-pg, plus the dir's cleanup.
 */
export async function generatePrismaClient(): Promise<{ open(url: string, schema: string): Promise<TestPrismaClient>; dispose(): Promise<void> }> {
  const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  await mkdir(join(root, 'test-output'), { recursive: true });
  const dir = await mkdtemp(join(root, 'test-output', 'prisma-'));
  await writeFile(join(dir, 'schema.prisma'), SCHEMA);
  const cli = createRequire(join(root, 'package.json')).resolve('prisma/build/index.js');
  // NOTE: the CLI fetches a schema-engine binary at start even for `generate`, which never runs it: naming one
  // that exists skips the download, so this works offline. Telemetry and update checks are off for the same reason.
  const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false', CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' };
  await promisify(execFile)(process.execPath, [cli, 'generate', '--schema', join(dir, 'schema.prisma')], { env, cwd: dir, timeout: 60_000 });
  const { PrismaClient } = (await import(pathToFileURL(join(dir, 'client', 'client.ts')).href)) as {
    PrismaClient: new (options: { adapter: unknown }) => TestPrismaClient;
  };
  const { PrismaPg } = await import('@prisma/adapter-pg');
  return {
    async open(url, schema) {
      return new PrismaClient({ adapter: new PrismaPg({ connectionString: url }, { schema }) });
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
