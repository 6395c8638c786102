import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { ROOT } from './doc-blocks.js';

/**
 * Links of Markdown files as GitHub renders them (README.md, CONTRIBUTING.md,
 * CHANGELOG.md, bench/README.md): a relative link must name a file of the
 * repository, and an #anchor a heading of its target (GitHub's slugs) or an
 * explicit <a id>/<a name>. The docs site's own links are checked on the built
 * site (site.spec.ts), where VitePress's slugs apply.
 */
const md = new MarkdownIt({ html: true });

function inlineText(token: Token | undefined): string {
  return (token?.children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join('');
}

/** The anchors GitHub makes for a Markdown file: one per heading (with -1, -2 for repeats), and explicit ids. */
export function githubAnchors(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const tokens = md.parse(text, {});
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(inlineText(tokens[i + 1])));
  });
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly href: string;
  readonly why: string;
}

/** Every relative link and anchor of one Markdown file that leads nowhere. */
export function brokenLinks(file: string): BrokenLink[] {
  const tokens = md.parse(readFileSync(join(ROOT, file), 'utf8'), {});
  const broken: BrokenLink[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (target: string) => anchorsOf.get(target) ?? anchorsOf.set(target, githubAnchors(target)).get(target)!;
  let line = 0;
  for (const token of tokens) {
    if (token.map) line = token.map[0] + 1;
    for (const child of token.children ?? []) {
      if (child.type !== 'link_open') continue;
      const href = child.attrGet('href') ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // http:, mailto: ...: not ours to check
      const [path = '', anchor] = href.split('#');
      const target = path === '' ? file : relative(ROOT, join(dirname(join(ROOT, file)), decodeURIComponent(path)));
      if (target.startsWith('..') || !existsSync(join(ROOT, target))) {
        broken.push({ file, line, href, why: `no file ${target}` });
        continue;
      }
      if (anchor === undefined) continue;
      if (!target.endsWith('.md') || statSync(join(ROOT, target)).isDirectory()) {
        broken.push({ file, line, href, why: `an anchor into ${target}, which is not a Markdown file` });
      } else if (!anchors(target).has(decodeURIComponent(anchor))) {
        broken.push({ file, line, href, why: `${target} has no heading or <a id> "${anchor}"` });
      }
    }
  }
  return broken;
}
