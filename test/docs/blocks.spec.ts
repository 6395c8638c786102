import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { ROOT, blockKey, blocksOf, checkBlocks, docFiles, runBlock, writeBlocks, type BlockProblem, type WrittenBlock } from './doc-blocks.js';

/**
 * Every ```ts block of README.md, CONTRIBUTING.md, bench/README.md and docs/
 * compiles against the built package (dist/, as `spool` resolves in an app),
 * and every block marked runnable runs to its end on a real Redis, printing
 * its ```text output block when it has one. The conventions are in
 * CONTRIBUTING.md ("Code blocks in the docs").
 *
 * README.md's blocks predated these rules; those that did not compile were
 * listed in readme-blocks-pending.json until the README became the front
 * door and its examples moved into docs/ (issue 36, phase 2): the list is
 * empty now and only shrinks. A README block that starts failing fails here,
 * and so does a listed block that compiles now (take it off the list). Each run writes the
 * list as it would be to test-output/docs/readme-blocks-pending.json: copy it
 * over this one when a change to the README is meant to add a block that
 * does not compile yet (better: make the block compile).
 */
const PENDING = JSON.parse(readFileSync(new URL('./readme-blocks-pending.json', import.meta.url), 'utf8')) as Record<string, string>;
const blocks = docFiles().flatMap(blocksOf);

describe('TypeScript blocks of the docs', () => {
  const redis = usePrivateRedis();
  let written: WrittenBlock[];
  let problems: BlockProblem[];

  beforeAll(() => {
    written = writeBlocks(blocks, redis.url);
    problems = checkBlocks(written);
  }, 180_000);

  it('finds the blocks of the docs site, the runnable ones included', () => {
    expect(blocks.filter((b) => b.doc.startsWith('docs/')).length).toBeGreaterThan(5);
    expect(blocks.filter((b) => b.runnable).length).toBeGreaterThan(1);
  });

  it('every block outside README.md type-checks', () => {
    expect(problems.filter((p) => p.block.doc !== 'README.md').map((p) => p.message)).toEqual([]);
  });

  it("README.md: exactly the blocks listed in readme-blocks-pending.json still fail", () => {
    const failing = new Map<string, string>();
    for (const p of problems.filter((p) => p.block.doc === 'README.md')) if (!failing.has(blockKey(p.block))) failing.set(blockKey(p.block), p.message.replace(/^README\.md:\d+: /, ''));
    const newlyBroken = [...failing].filter(([key]) => !(key in PENDING)).map(([key, message]) => `${key}: ${message}`);
    const nowPassing = Object.keys(PENDING).filter((key) => !failing.has(key));
    const proposal = join(ROOT, 'test-output', 'docs', 'readme-blocks-pending.json');
    mkdirSync(join(ROOT, 'test-output', 'docs'), { recursive: true });
    writeFileSync(proposal, `${JSON.stringify(Object.fromEntries([...failing].sort(([a], [b]) => (a < b ? -1 : 1))), null, 2)}\n`);
    const hint = `the list as it would be is in ${proposal} (cp it to test/docs/ if these are meant)`;
    expect({ newlyBroken, nowPassing, hint: newlyBroken.length + nowPassing.length > 0 ? hint : '' }).toEqual({ newlyBroken: [], nowPassing: [], hint: '' });
  });

  it('every runnable block runs to its end on Redis and prints its output block', () => {
    const runnable = written.filter((w) => w.block.runnable);
    const failures = runnable.map((w) => runBlock(w, redis.url)).filter((r) => !r.ok).map((r) => r.report);
    expect(failures).toEqual([]);
  }, 240_000);
});
