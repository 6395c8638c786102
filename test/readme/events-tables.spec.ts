import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { docTable } from '../helpers/readme-table.js';

/** The members of an interface in a lib file, each with the names inside its type (property names, or tuple labels). */
function members(file: string, name: string): Map<string, string[]> {
  const source = ts.createSourceFile(file, readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), ts.ScriptTarget.Latest, true);
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!found) throw new Error(`${file} has no interface ${name}`);
  const out = new Map<string, string[]>();
  for (const member of found.members) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    const type = member.type;
    const inner = ts.isTypeLiteralNode(type)
      ? type.members.map((m) => (m.name && ts.isIdentifier(m.name) ? m.name.text : ''))
      : ts.isTupleTypeNode(type)
        ? type.elements.map((e) => (ts.isNamedTupleMember(e) ? e.name.text : ''))
        : [];
    out.set((member.name as ts.Identifier).text, inner);
  }
  return out;
}

/** The rows of a docs table as event -> the backticked names of its second column. */
function documented(marker: string): Map<string, string[]> {
  return new Map(docTable('docs/reference/events.md', marker).map(([event = '', cell = '']) => [event.replace(/`/g, ''), [...cell.matchAll(/`(\w+)`/g)].map((m) => m[1]!)]));
}

/** docs/reference/events.md lists every event with exactly the fields (stream) and arguments (worker) the types declare. */
describe('the events reference', () => {
  it('stream events: every QueueEventMap entry, its fields', () => {
    expect(documented('| event | fields | when |')).toEqual(members('lib/engine/queue-events-types.ts', 'QueueEventMap'));
  });

  it('worker events: every WorkerEvents entry, its arguments', () => {
    expect(documented('| event | arguments | when |')).toEqual(members('lib/engine/events.ts', 'WorkerEvents'));
  });
});
