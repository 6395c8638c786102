// The docs site (VitePress). `npm run docs` serves it, `npm run docs:build`
// builds it into docs/.vitepress/dist with no network. Pages are Markdown
// files under docs/; a page appears in the navigation once it is listed in
// SECTIONS below (a section without pages is left out). Parts of some pages
// are generated before each build (docs/.vitepress/gen/main.mjs): the API
// reference in docs/api/ and the tables in docs/.generated/, included by the
// pages with <!--@include: ...-->. CONTRIBUTING.md says how to add a page.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; description: string };

/** The sections of the site, in order; each page is one line. */
export const SECTIONS: readonly { text: string; items: DefaultTheme.SidebarItem[] }[] = [
  {
    text: 'Guide',
    items: [
      { text: 'Getting started', link: '/guide/getting-started' },
      { text: 'Concepts', link: '/guide/concepts' },
      { text: 'Installation', link: '/guide/installation' },
      { text: 'The Nest module and processors', link: '/guide/processors' },
      { text: 'Jobs and options', link: '/guide/jobs' },
      { text: 'Retries and dead letters', link: '/guide/retries' },
      { text: 'Flows', link: '/guide/flows' },
      { text: 'Schedulers', link: '/guide/schedulers' },
      { text: 'Throughput control', link: '/guide/throughput' },
      { text: 'Step jobs and side effects', link: '/guide/step-jobs' },
      { text: 'Workers: pause, sandboxes, batches', link: '/guide/workers' },
      { text: 'Testing', link: '/guide/testing' },
      ...optional({ text: 'PostgreSQL', link: '/guide/postgres' }),
      ...optional({ text: 'Transactional enqueue on Redis (outbox)', link: '/guide/outbox' }),
      { text: 'The sample app', link: '/guide/sample-app' },
    ],
  },
  {
    text: 'Operations',
    items: [
      { text: 'Deployment', link: '/operations/deployment' },
      ...optional({ text: 'Connections', link: '/operations/connections' }),
      { text: 'When Redis fails', link: '/operations/outages' },
      { text: 'Queues and workers on call', link: '/operations/workers' },
      { text: 'Dashboard', link: '/operations/dashboard' },
      { text: 'Command line', link: '/operations/cli' },
      { text: 'Metrics', link: '/operations/metrics' },
      { text: 'Traces', link: '/operations/traces' },
      { text: 'Logs', link: '/operations/logs' },
      { text: 'Redis Cluster and sharding', link: '/operations/cluster' },
      { text: 'NATS', link: '/operations/nats' },
      { text: 'Running a soak', link: '/operations/soak' },
    ],
  },
  {
    text: 'Migrating from BullMQ',
    items: [
      { text: 'The API side by side', link: '/migrating/bullmq-api' },
      ...optional({ text: 'From @nestjs/bullmq and @nestjs/bull', link: '/migrating/from-nestjs-bullmq' }),
      { text: "Bringing BullMQ's jobs across", link: '/migrating/importer' },
      ...optional({ text: 'Switching a live system', link: '/migrating/switching' }),
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'API', link: '/api/' },
      { text: 'Options', link: '/reference/options' },
      { text: 'Errors', link: '/reference/errors' },
      { text: 'Events', link: '/reference/events' },
      { text: 'CLI commands', link: '/reference/cli' },
      { text: 'Versioning policy', link: '/reference/versioning' },
    ],
  },
  {
    text: 'Internals',
    items: [
      { text: 'Architecture', link: '/internals/architecture' },
      { text: 'Redis layout', link: '/internals/redis-layout' },
      { text: 'Lua scripts', link: '/internals/lua-scripts' },
      { text: 'Store and notify contracts', link: '/internals/contracts' },
    ],
  },
  { text: 'Benchmarks', items: [{ text: 'Results and how to reproduce', link: '/benchmarks/' }] },
];

/** A page another change adds: listed once its file exists, so the sidebar never links to a missing page. */
function optional(item: DefaultTheme.SidebarItem): DefaultTheme.SidebarItem[] {
  return item.link !== undefined && existsSync(fileURLToPath(new URL(`..${item.link}.md`, import.meta.url))) ? [item] : [];
}

const sections = SECTIONS.filter((section) => section.items.length > 0);

/** The API reference's own sidebar, written by typedoc-vitepress-theme (absent until the first generation). */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
  if (!existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[];
}

export default defineConfig({
  title: 'Spool',
  description: pkg.description,
  lang: 'en-GB',
  // The generated fragments are included into pages, never pages themselves.
  srcExclude: ['.generated/**', 'README.md'],
  // Unknown links fail the build (VitePress's own check); anchors are checked by test/docs/links.spec.ts.
  ignoreDeadLinks: false,
  markdown: {
    lineNumbers: false,
    // A ```ts file=src/x.ts block shows its file's path above it: the reader
    // needs it to lay the files out, and the blocks import each other by it.
    config(md) {
      const fence = md.renderer.rules.fence!;
      md.renderer.rules.fence = (tokens, idx, options, env, self) => {
        const file = /(?:^|\s)file=(\S+)/.exec(tokens[idx]!.info)?.[1];
        const html = fence(tokens, idx, options, env, self);
        return file ? `<p class="code-file"><code>${md.utils.escapeHtml(file)}</code></p>\n${html}` : html;
      };
    },
  },
  // The local search index of the API reference is one chunk of about 1 MB: expected, not a warning.
  vite: { build: { chunkSizeWarningLimit: 2048 } },
  themeConfig: {
    nav: [
      ...sections.map((section) => ({ text: section.text, link: firstLink(section.items), activeMatch: activeMatch(section.items) })),
      { text: `v${pkg.version}`, items: [{ text: 'Changelog', link: '/reference/changelog' }, { text: 'Versioning policy', link: '/reference/versioning' }] },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', items: apiSidebar() }],
      // Each section folds (open at first): the sidebar stays short enough to find the section one is in.
      '/': sections.map((section) => ({ text: section.text, items: section.items, collapsed: false })),
    },
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    footer: { message: 'Released under the MIT License.' },
  },
});

function firstLink(items: readonly DefaultTheme.SidebarItem[]): string {
  return items.map((item) => item.link).find((link): link is string => link !== undefined) ?? '/';
}

/** A section's nav entry is highlighted on any of its pages (the path prefixes of its links). */
function activeMatch(items: readonly DefaultTheme.SidebarItem[]): string {
  const prefixes = new Set(items.map((item) => item.link?.split('/')[1]).filter(Boolean));
  return `^/(${[...prefixes].join('|')})/`;
}
