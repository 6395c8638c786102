// The API reference: TypeDoc reads the TSDoc of every entry point's exports
// and writes Markdown pages for VitePress into docs/api/ (typedoc-plugin-markdown
// with typedoc-vitepress-theme, which also writes docs/api/typedoc-sidebar.json),
// plus the same project as JSON for the other generators (errors.mjs).
import { Application, LogLevel } from 'typedoc';
import { join } from 'node:path';
import { API_JSON, API_OUT, DOCS, ROOT, entryPoints } from './paths.mjs';

/**
 * strict: any TypeDoc warning (an unknown TSDoc tag that would swallow text,
 * a broken {@link}) fails the run, as docs:build wants; the dev server only shows them.
 */
export async function generateApi({ strict }) {
  const app = await Application.bootstrapWithPlugins({
    entryPoints: entryPoints().map((entry) => join(ROOT, entry.source)),
    tsconfig: join(ROOT, 'tsconfig.build.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: API_OUT,
    docsRoot: DOCS,
    name: 'Spool API',
    readme: 'none',
    entryFileName: 'index',
    disableSources: true,
    excludePrivate: true,
    excludeInternal: true,
    sort: ['kind', 'alphabetical'],
    useCodeBlocks: true,
    parametersFormat: 'table',
    interfacePropertiesFormat: 'table',
    classPropertiesFormat: 'table',
    enumMembersFormat: 'table',
    typeDeclarationFormat: 'table',
    hidePageTitle: false,
    sidebar: { autoConfiguration: true, format: 'vitepress', pretty: true, collapsed: true },
    // Missing doc comments are test/docs/api-docs.spec.ts's job (it names the entry point); types used
    // by public signatures but not exported are reported below TypeDoc's output, not failed.
    validation: { notExported: false, notDocumented: false, invalidLink: true, rewrittenLink: true, unusedMergeModuleWith: true },
    outputs: [
      { name: 'markdown', path: API_OUT },
      { name: 'json', path: API_JSON },
    ],
    logLevel: LogLevel.Warn,
  });
  const warnings = recordWarnings(app.logger);
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the entry points (see the errors above)');
  app.validate(project);
  if (app.logger.hasErrors() || (strict && warnings.length > 0)) {
    throw new Error(`TypeDoc found problems in the doc comments:\n${warnings.join('\n')}\n(a decorator named in a comment needs backticks: \`@Processor\`, else TSDoc reads it as a tag and drops the text after it)`);
  }
  await app.generateOutputs(project);
  return project;
}

/**
 * Warnings that do not mean a wrong page: an option documented both in a
 * shared options type and in the type that narrows it (TypeDoc shows one of the two comments).
 */
const TOLERATED = [/has multiple declarations with a comment/];

function recordWarnings(logger) {
  const warnings = [];
  const log = logger.log.bind(logger);
  logger.log = (message, level) => {
    const text = message.replace(/\x1b\[[0-9;]*m/g, '');
    if (level === LogLevel.Warn && TOLERATED.some((pattern) => pattern.test(text))) return;
    if (level === LogLevel.Warn) warnings.push(text);
    log(message, level);
  };
  return warnings;
}
