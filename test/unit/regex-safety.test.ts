// Every regular expression in src/ runs in linear time: recheck looks for inputs that make a
// backtracking engine (V8's) take polynomial or exponential time. The patterns are found with the
// TypeScript parser (regex literals, and RegExp constructors called with a string literal), so a
// new pattern anywhere in src/ is checked without being listed here. The document's `pattern`s run on
// request text too (Ajv compiles them with the `u` flag), before any handler, so they are checked
// as well.
import fs from 'node:fs';
import path from 'node:path';
import { check } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../src/openapi.js';

interface Found {
  where: string;
  source: string;
  flags: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function patternsIn(file: string): Found[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const where = (node: ts.Node) =>
    `${path.relative(process.cwd(), file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isRegularExpressionLiteral(node)) {
      const literal = node.text;
      const end = literal.lastIndexOf('/');
      found.push({ where: where(node), source: literal.slice(1, end), flags: literal.slice(end + 1) });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [pattern, flags] = node.arguments ?? [];
      if (pattern && ts.isStringLiteralLike(pattern)) {
        found.push({
          where: where(node),
          source: pattern.text,
          flags: flags && ts.isStringLiteralLike(flags) ? flags.text : '',
        });
      } else {
        found.push({ where: where(node), source: '<not a literal: cannot be checked>', flags: '' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every schema `pattern` in the bundled document the server loads. */
function documentPatterns(): Found[] {
  const found: Found[] = [];
  const visit = (node: unknown, at: string) => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string')
        found.push({ where: `generated/openapi.json${at}`, source: value, flags: 'u' });
      else visit(value, `${at}/${key}`);
    }
  };
  visit(loadDocument(), '#');
  return found;
}

const patterns = sourceFiles(path.resolve('src')).flatMap(patternsIn);
const fromDocument = documentPatterns();

describe('regular expressions in src/ and the document', () => {
  it('are found', () => {
    // A parser that stopped finding them would make the next test pass vacuously.
    expect(patterns.length).toBeGreaterThan(20);
  });

  it('are found in the document', () => {
    expect(fromDocument.length).toBeGreaterThan(10);
  });

  it.each([...patterns, ...fromDocument].map((p) => [p.where, p] as const))(
    '%s runs in linear time',
    async (_where, pattern) => {
      expect(pattern.source).not.toBe('<not a literal: cannot be checked>');
      const diagnostics = await check(pattern.source, pattern.flags, { timeout: 10_000 });
      expect({ pattern: `/${pattern.source}/${pattern.flags}`, status: diagnostics.status }).toEqual({
        pattern: `/${pattern.source}/${pattern.flags}`,
        status: 'safe',
      });
    },
  );
});
