import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './doc-blocks.js';

/**
 * Every name an entry point exports has a doc comment (TSDoc): the API
 * reference (docs/api, TypeDoc) shows it, and an editor shows it on hover.
 * Entry points are read from package.json "exports", as the build reads them.
 */
function entrySources(): { name: string; file: string }[] {
  const pkg = JSON.parse(ts.sys.readFile(join(ROOT, 'package.json'))!) as { name: string; exports: Record<string, { require?: { default: string } } | string> };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    if (typeof target !== 'object' || !target.require) return [];
    const file = join(ROOT, target.require.default.replace(/^\.\/dist\/cjs\//, 'lib/').replace(/\.js$/, '.ts'));
    return [{ name: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, file }];
  });
}

/** `export const { a, b } = ...` documents its names in the comment of the whole statement. */
function destructuredWithDoc(declaration: ts.Declaration | undefined): boolean {
  let node: ts.Node | undefined = declaration;
  while (node && ts.isBindingElement(node)) node = node.parent.parent;
  if (!node || node === declaration || !ts.isVariableDeclaration(node)) return false;
  return ts.getJSDocCommentsAndTags(node).length > 0;
}

function undocumentedExports(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.build.json could not be read');
  const entries = entrySources();
  const program = ts.createProgram(entries.map((e) => e.file), { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const missing: string[] = [];
  for (const entry of entries) {
    const source = program.getSourceFile(entry.file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${entry.file} (the entry point ${entry.name}) is not a module`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (symbol.getDocumentationComment(checker).length > 0 || destructuredWithDoc(declaration)) continue;
      const where = declaration ? `${declaration.getSourceFile().fileName.slice(ROOT.length)}:${declaration.getSourceFile().getLineAndCharacterOfPosition(declaration.getStart()).line + 1}` : '';
      missing.push(`${entry.name}: ${exported.name} (${where})`);
    }
  }
  return missing;
}

function libFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? libFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/**
 * `@Processor` written bare in a doc comment: TSDoc reads it as a block tag and
 * the API reference loses the text after it (the docs build fails on it; this
 * finds it in a second, without the build). Code spans, ``` fences and `\@` are fine.
 */
function bareDecoratorNames(): string[] {
  const found: string[] = [];
  for (const file of libFiles(join(ROOT, 'lib'))) {
    const text = readFileSync(file, 'utf8');
    for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
      const prose = comment[0].replace(/```[\s\S]*?```/g, (code) => ' '.repeat(code.length)).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
      for (const tag of prose.matchAll(/(?<=\s)@[A-Z]\w*/g)) {
        const line = text.slice(0, comment.index + tag.index).split('\n').length;
        found.push(`${relative(ROOT, file)}:${line} ${tag[0]} (write \`${tag[0]}\`)`);
      }
    }
  }
  return found;
}

describe('doc comments of the public API', () => {
  it('name decorators in backticks (bare, TSDoc takes them for tags)', () => {
    expect(bareDecoratorNames()).toEqual([]);
  });

  it('every export of every entry point has a doc comment', () => {
    expect(undocumentedExports()).toEqual([]);
  }, 120_000);
});
