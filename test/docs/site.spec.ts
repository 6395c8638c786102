import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { DOCS_DIST, ensureBuiltDocs } from '../helpers/build-docs.mjs';

/**
 * The built docs site (npm run docs:build; built here when the sources are
 * newer): every link between its pages leads to a page and every #anchor to
 * an element of it, and Debian's chromium renders the home page, a guide page
 * and the API page of Queue with their navigation, sidebar and working search.
 * Screenshots of each are kept in test-output/docs/ for a person to look at.
 */
const SHOTS = join(process.cwd(), 'test-output', 'docs');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? htmlFiles(join(dir, e.name)) : e.name.endsWith('.html') ? [join(dir, e.name)] : []));
}

/** The file a site path is served from, as VitePress's own preview server does it (clean URLs off). */
function fileOf(pathname: string): string {
  const path = decodeURIComponent(pathname);
  if (path.endsWith('/')) return join(DOCS_DIST, path, 'index.html');
  return join(DOCS_DIST, extname(path) ? path : `${path}.html`);
}

function idsOf(file: string, cache: Map<string, Set<string>>): Set<string> {
  let ids = cache.get(file);
  if (!ids) cache.set(file, (ids = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!))));
  return ids;
}

describe('the docs site, built', () => {
  let server: Server;
  let base: string;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ensureBuiltDocs();
    server = createServer((request, response) => {
      const file = fileOf(new URL(request.url ?? '/', 'http://docs').pathname);
      if (!file.startsWith(DOCS_DIST) || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'spool-docs-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1360, height: 900 } });
    page = browser.pages()[0] ?? (await browser.newPage());
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('every link between pages leads to a page, and every #anchor to an element of it', () => {
    const pages = htmlFiles(DOCS_DIST);
    const ids = new Map<string, Set<string>>();
    const broken: string[] = [];
    let checked = 0;
    for (const file of pages) {
      const here = new URL(`/${relative(DOCS_DIST, file)}`, 'http://docs');
      for (const match of readFileSync(file, 'utf8').matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
        const url = new URL(match[1]!.replace(/&amp;/g, '&'), here);
        if (url.origin !== 'http://docs') continue;
        checked += 1;
        const target = fileOf(url.pathname);
        if (!existsSync(target)) broken.push(`${relative(DOCS_DIST, file)}: ${match[1]} (no page ${relative(DOCS_DIST, target)})`);
        else if (url.hash && !idsOf(target, ids).has(decodeURIComponent(url.hash.slice(1)))) broken.push(`${relative(DOCS_DIST, file)}: ${match[1]} (no id "${url.hash.slice(1)}")`);
      }
    }
    expect(pages.length).toBeGreaterThan(50);
    expect(checked).toBeGreaterThan(1000);
    expect(broken).toEqual([]);
  });

  async function open(path: string, shot: string): Promise<void> {
    await page.goto(base + path);
    await page.locator('.VPNavBar').waitFor();
    await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: false });
  }

  async function navTexts(): Promise<string[]> {
    return page.locator('.VPNavBarMenu a, .VPNavBarMenu button').allInnerTexts();
  }

  it('the home page: title, calls to action, the sections in the navigation, the search box', async () => {
    await open('/', 'home');
    expect(await page.locator('.VPHero .name').innerText()).toBe('Spool');
    expect(await page.locator('.VPHero .actions a').allInnerTexts()).toEqual(['Getting started', 'API reference', 'Internals']);
    expect((await navTexts()).map((t) => t.trim())).toEqual(expect.arrayContaining(['Guide', 'Reference', 'Internals']));
    await expect(page.locator('.VPNavBarSearch button').isVisible()).resolves.toBe(true);
  });

  it('a guide page: its headings, the sidebar of every section, the outline', async () => {
    await open('/guide/getting-started.html', 'guide');
    expect(await page.locator('.vp-doc h1').innerText()).toContain('Getting started');
    const sidebar = await page.locator('.VPSidebar').innerText();
    for (const entry of ['Getting started', 'Errors', 'CLI commands', 'Architecture', 'Lua scripts']) expect(sidebar).toContain(entry);
    expect(await page.locator('.VPDocAsideOutline').innerText()).toContain('Test the processor');
    await expect(page.locator('.VPNavBarSearch button').isVisible()).resolves.toBe(true);
  });

  it('the API page of Queue: its methods, the API sidebar, the navigation', async () => {
    await open('/api/spool/classes/Queue.html', 'api-queue');
    expect(await page.locator('.vp-doc h1').innerText()).toContain('Queue');
    const content = await page.locator('.vp-doc').innerText();
    for (const method of ['add()', 'addBulk()', 'getJob()', 'pause()']) expect(content).toContain(method);
    expect(await page.locator('.VPSidebar').innerText()).toContain('Queue');
    expect((await navTexts()).map((t) => t.trim())).toEqual(expect.arrayContaining(['Guide', 'Reference', 'Internals']));
  });

  it('the search box finds pages by their words', async () => {
    await open('/', 'search-closed');
    await page.locator('.VPNavBarSearch button').click();
    await page.locator('.VPLocalSearchBox input').fill('redrive');
    const results = page.locator('.VPLocalSearchBox .results li');
    await results.first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'search.png') });
    expect(await results.count()).toBeGreaterThan(1);
    expect((await results.allInnerTexts()).join('\n').toLowerCase()).toContain('redrive');
  });
});
