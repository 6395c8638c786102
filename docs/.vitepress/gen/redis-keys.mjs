// The Redis layout tables: every key and channel of a queue, named by
// lib/store/keys.ts (the only place key names are built), with the name the
// built package gives it for prefix "spool" and queue "emails", and the doc
// comment keys.ts has for it. The page's text is docs/internals/redis-layout.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT, cellText, generatedBy } from './paths.mjs';

const KEYS_TS = join(ROOT, 'lib', 'store', 'keys.ts');
const require = createRequire(join(ROOT, 'package.json'));

/** The members of an interface of keys.ts: name, parameter names (methods) and doc comment. */
function members(source, interfaceName) {
  const declaration = source.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === interfaceName);
  if (!declaration) throw new Error(`lib/store/keys.ts has no interface ${interfaceName} (the Redis layout page reads it)`);
  return declaration.members.map((member) => {
    const docs = (member.jsDoc ?? []).map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ');
    const params = ts.isMethodSignature(member) ? member.parameters.map((p) => p.name.getText(source)) : undefined;
    return { name: member.name.getText(source), params, docs: docs.replace(/\s*\n\s*/g, ' ') };
  });
}

function row(name, example, docs) {
  return `| \`${name}\` | \`${example.replace(/\n/g, '\\n')}\` | ${cellText(docs)} |`;
}

export function keysReference() {
  const source = ts.createSourceFile(KEYS_TS, readFileSync(KEYS_TS, 'utf8'), ts.ScriptTarget.Latest, true);
  const { queueKeys, channels } = require(join(ROOT, 'dist', 'cjs', 'store', 'keys.js'));
  const keys = queueKeys('spool', 'emails');
  const keyRows = members(source, 'QueueKeys')
    .filter((m) => m.name !== 'queue')
    .map((m) => {
      const value = m.params ? keys[m.name](...m.params.map((p) => `<${p}>`)) : keys[m.name];
      return row(m.params ? `${m.name}(${m.params.join(', ')})` : m.name, value, m.docs);
    });
  const channel = channels('spool');
  const channelRows = members(source, 'Channels').map((m) => row(m.name, channel[m.name], m.docs));
  return [
    generatedBy('redis-keys.mjs', 'lib/store/keys.ts and the built queueKeys()/channels()'),
    '### Keys of one queue',
    '',
    'For the prefix `spool` (the default) and the queue `emails`:',
    '',
    '| In `keys.ts` | Key | What it holds |',
    '|---|---|---|',
    ...keyRows,
    '',
    '### Channels',
    '',
    'Shared by every queue of a prefix (pub/sub carries no hash tag: a cluster delivers it on every node):',
    '',
    '| In `keys.ts` | Channel | What it carries |',
    '|---|---|---|',
    ...channelRows,
    '',
  ].join('\n');
}
