import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './doc-blocks.js';
import { brokenLinks, githubAnchors } from './markdown-links.js';

/** Relative links and #anchors of the Markdown files GitHub shows (the site's links: site.spec.ts). */
const FILES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md'];

describe('links of the repository Markdown files', () => {
  it.each(FILES)('%s: every relative link names a file, every #anchor a heading', (file) => {
    expect(brokenLinks(file).map((b) => `${b.file}:${b.line} ${b.href}: ${b.why}`)).toEqual([]);
  });

  it("uses GitHub's heading slugs (a link that is wrong by one character is found)", () => {
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    writeFileSync(join(ROOT, 'test-output', 'slugs-fixture.md'), ['# Notify transports: Redis pub/sub or NATS', '', '## Coming from @nestjs/bullmq', ''].join('\n'));
    const anchors = githubAnchors('test-output/slugs-fixture.md');
    expect(anchors).toContain('notify-transports-redis-pubsub-or-nats');
    expect(anchors).toContain('coming-from-nestjsbullmq');
    expect(anchors).not.toContain('notify-transports-redis-pub-sub-or-nats');
  });

  it('finds a link to a missing file, a missing heading and a wrong anchor into another file', () => {
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    writeFileSync(
      join(ROOT, 'test-output', 'links-fixture.md'),
      ['# Title', '', '## A section', '', '[ok](#a-section) [self](#no-such) [file](../no-such.md) [there](../README.md#no-such-heading) [fine](../README.md#install)', ''].join('\n'),
    );
    expect(brokenLinks('test-output/links-fixture.md').map((b) => b.href)).toEqual(['#no-such', '../no-such.md', '../README.md#no-such-heading']);
  });
});
