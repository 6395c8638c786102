import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';
import ts from 'typescript';

/**
 * The TypeScript blocks of the docs, as CONTRIBUTING.md ("Code blocks in the
 * docs") defines them. The info string after ```ts says what a block is:
 *
 *   ```ts                      a whole file: type-checked on its own against the built package
 *   ```ts file=src/app.ts      a file of the page's app: the page's blocks import each other by path
 *   ```ts fragment             part of a file: type-checked after the <!-- context: ... --> comment
 *                              right before it (package imports and `declare const` only)
 *   ```ts runnable             type-checked, then run with node on a real Redis: it must exit 0
 *                              (a node:test file runs its tests so)
 *   ```text output             right after a runnable block: what it must print
 *
 * Every block is an ES module, as in a Nest 12 app (top-level await works;
 * relative imports end in .js, which also compiles in a CommonJS Nest 11 app).
 */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the blocks are written as files, type-checked and compiled (gitignored). */
export const OUT = join(ROOT, 'test-output', 'docs-blocks');
/** The Redis URL runnable blocks are written with; the test runs them against its own server instead. */
export const DOC_REDIS_URL = 'redis://127.0.0.1:6379';

export interface DocBlock {
  /** The Markdown file, relative to the repository root. */
  readonly doc: string;
  /** Line of the block's first code line in the Markdown file (1-based). */
  readonly line: number;
  /** The heading the block is under, and its place among that heading's TypeScript blocks (1-based). */
  readonly heading: string;
  readonly ordinal: number;
  readonly fileName: string | undefined;
  readonly fragment: boolean;
  readonly runnable: boolean;
  readonly code: string;
  readonly context: string | undefined;
  readonly output: string | undefined;
}

const md = new MarkdownIt({ html: true });

/** Markdown files the checks read: README.md, CONTRIBUTING.md, bench/README.md and docs/ (not the generated parts). */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'api' || entry.name === 'node_modules' ? [] : walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md', ...walk('docs')].filter((f) => existsSync(join(ROOT, f)));
}

function contextOf(html: string): string | undefined {
  const match = /^<!--\s*context:\s*([\s\S]*?)-->\s*$/.exec(html.trim());
  return match?.[1]?.trim();
}

/** The ```ts blocks of one Markdown file, with what their info strings and neighbours say. */
export function blocksOf(doc: string): DocBlock[] {
  const tokens = md.parse(readFileSync(join(ROOT, doc), 'utf8'), {});
  const blocks: DocBlock[] = [];
  let heading = '(top)';
  let ordinal = 0;
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      heading = tokens[i + 1]?.content ?? heading;
      ordinal = 0;
    }
    if (token.type !== 'fence') return;
    const [lang, ...words] = token.info.trim().split(/\s+/);
    if (lang !== 'ts' && lang !== 'typescript') return;
    ordinal += 1;
    const previous = tokens[i - 1];
    // The next fence (a sentence such as "It prints:" may stand between): its expected output when marked so.
    const next = tokens.slice(i + 1).find((t) => t.type === 'fence');
    const outputBlock = next?.type === 'fence' && next.info.trim() === 'text output' ? next.content : undefined;
    const fileWord = words.find((w) => w.startsWith('file='));
    const unknown = words.filter((w) => w !== 'fragment' && w !== 'runnable' && !w.startsWith('file='));
    if (unknown.length > 0) throw new Error(`${doc}:${(token.map?.[0] ?? 0) + 1}: unknown word(s) in \`\`\`ts ${words.join(' ')}: ${unknown.join(', ')} (see CONTRIBUTING.md, "Code blocks in the docs")`);
    blocks.push({
      doc,
      line: (token.map?.[0] ?? 0) + 2,
      heading,
      ordinal,
      fileName: fileWord?.slice('file='.length),
      fragment: words.includes('fragment'),
      runnable: words.includes('runnable'),
      code: token.content,
      context: previous?.type === 'html_block' ? contextOf(previous.content) : undefined,
      output: outputBlock,
    });
  });
  return blocks;
}

/** A context may only bring names in: imports from packages and `declare const|let` (no classes an example would need). */
export function contextProblem(context: string): string | undefined {
  const source = ts.createSourceFile('context.ts', context, ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && !statement.moduleSpecifier.text.startsWith('.')) continue;
    const declare = ts.isVariableStatement(statement) && statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
    if (declare && !(statement.declarationList.flags & ts.NodeFlags.Using)) continue;
    return `the context may hold package imports and \`declare const\` only, not: ${statement.getText(source).split('\n')[0]}`;
  }
  return undefined;
}

export interface WrittenBlock {
  readonly block: DocBlock;
  /** The file the block was written to, and how many lines (the context's) precede its code there. */
  readonly path: string;
  readonly offset: number;
}

/** The folder a Markdown file's blocks are written to. */
function pageDir(doc: string): string {
  return join(OUT, doc.replace(/\.md$/, '').replace(/[/\\]/g, '__'));
}

/**
 * Writes every block as a file under test-output/docs-blocks/<page>/, beside a
 * node_modules/spool link to this repository, so `import ... from 'spool'`
 * resolves through package.json "exports" to the built package, as in an app.
 */
export function writeBlocks(blocks: readonly DocBlock[], redisUrl?: string): WrittenBlock[] {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(OUT, 'node_modules', 'spool'), 'dir');
  const counters = new Map<string, number>();
  return blocks.map((block) => {
    const dir = pageDir(block.doc);
    const n = (counters.get(dir) ?? 0) + 1;
    counters.set(dir, n);
    if (n === 1) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    }
    const path = join(dir, block.fileName ?? `block-${n}.ts`);
    const context = block.fragment && block.context ? `${block.context}\n` : '';
    const code = block.runnable && redisUrl ? block.code.split(DOC_REDIS_URL).join(redisUrl) : block.code;
    mkdirSync(dirname(path), { recursive: true });
    // `export {}` keeps a block without imports a module (its names stay its own).
    writeFileSync(path, `${context}${code}\nexport {};\n`);
    return { block, path, offset: context ? context.split('\n').length - 1 : 0 };
  });
}

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node', 'jest'],
  typeRoots: [join(ROOT, 'node_modules', '@types')],
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  skipLibCheck: true,
  sourceMap: false,
  declaration: false,
};

export interface BlockProblem {
  readonly block: DocBlock;
  readonly message: string;
}

/** Type-checks every written block in one program and compiles them beside their sources (.ts -> .js). */
export function checkBlocks(written: readonly WrittenBlock[]): BlockProblem[] {
  const byPath = new Map(written.map((w) => [w.path, w]));
  const problems: BlockProblem[] = [];
  for (const w of written) {
    const problem = w.block.fragment ? (w.block.context ? contextProblem(w.block.context) : undefined) : undefined;
    if (problem) problems.push({ block: w.block, message: problem });
    if (!w.block.fragment && w.block.context) problems.push({ block: w.block, message: 'has a <!-- context: --> comment but is not marked fragment' });
  }
  const program = ts.createProgram([...byPath.keys()], OPTIONS);
  const emitted = program.emit();
  for (const diagnostic of [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]) {
    const w = diagnostic.file && byPath.get(diagnostic.file.fileName);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').split('\n')[0]!;
    if (!w) {
      problems.push({ block: written[0]!.block, message: `${diagnostic.file?.fileName ?? 'the compiler'}: ${text}` });
      continue;
    }
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const inBlock = line - w.offset;
    const where = inBlock < 0 ? `its context (line ${line + 1})` : `${w.block.doc}:${w.block.line + inBlock}`;
    problems.push({ block: w.block, message: `${where}: TS${diagnostic.code} ${text}` });
  }
  return problems;
}

/** The environment of a block's process: no jest or npm variables, the test's Redis as REDIS_URL. */
function childEnv(redisUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'JEST_WORKER_ID' && !key.startsWith('SPOOL_TEST')) env[key] = value;
  }
  return { ...env, REDIS_URL: redisUrl, FORCE_COLOR: '0' };
}

/** Runs a runnable block's compiled file with node (a node:test file runs its tests so, and fails with them). */
export function runBlock(w: WrittenBlock, redisUrl: string): { ok: boolean; stdout: string; report: string } {
  const compiled = w.path.replace(/\.ts$/, '.js');
  const result = spawnSync(process.execPath, [compiled], { cwd: dirname(compiled), env: childEnv(redisUrl), encoding: 'utf8', timeout: 90_000 });
  const ok = result.status === 0 && (w.block.output === undefined || result.stdout.trim() === w.block.output.trim());
  const why = result.status === 0 ? 'printed something else than its ```text output block' : `exited ${result.status ?? result.signal}`;
  return { ok, stdout: result.stdout, report: `${w.block.doc}:${w.block.line} (runnable) ${why}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}` };
}

/** The key of a README block in the list of blocks phase 2 still has to fix: "README.md › heading › n". */
export function blockKey(block: DocBlock): string {
  return `${block.doc} › ${block.heading} › ${block.ordinal}`;
}
