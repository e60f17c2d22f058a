// The documented examples of the transaction library are run as written: each ```js block of the
// "Transactions from a program" section of docs/library.md (the README links there), in order, as
// a program importing the built package by name, in one checkout; git then checks what they did.
// Those of "Pushing from a program" run the same way in a clone of a bare repository.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, git, gitEnv, makeRepo, repoRoot } from '../helpers/repos.js';
import { anotherBotPushes, localHost, seededRemote } from '../helpers/remote.js';
import { expectFsckClean } from '../helpers/snapshot.js';

/** The ```js blocks of one section of docs/library.md (up to the next heading of its level or above). */
function readmeExamples(heading: string): string[] {
  const text = readFileSync(path.join(repoRoot, 'docs', 'library.md'), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/library.md has no section '${heading}'`);
  const level = heading.indexOf(' ');
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let work = '';
beforeAll(() => {
  if (!existsSync(path.join(repoRoot, 'dist/index.js'))) throw new Error("dist/index.js is missing: run 'node scripts/build.mjs' first");
  work = mkdtempSync(path.join(tmpdir(), 'patchtx-readme-'));
  // `import ... from 'patchtx'` finds this package, as it finds an installed one
  mkdirSync(path.join(work, 'node_modules'));
  symlinkSync(repoRoot, path.join(work, 'node_modules', 'patchtx'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  cleanupRepos();
});

/** Runs the examples in order in `dir`, each as a program of its own; their outputs. */
function runExamples(examples: string[], dir: string): string[] {
  const outputs: string[] = [];
  for (const [i, code] of examples.entries()) {
    const file = path.join(work, `example-${i + 1}.mjs`);
    writeFileSync(file, code);
    const r = spawnSync(process.execPath, [file], { cwd: dir, env: gitEnv, encoding: 'utf8' });
    expect(r.stderr, `example ${i + 1}:\n${code}`).toBe('');
    expect(r.status, `example ${i + 1}`).toBe(0);
    outputs.push(r.stdout);
  }
  return outputs;
}

describe("the library's documented examples", () => {
  const examples = readmeExamples('## Transactions from a program');

  it('are there, one for each command of the opened repository', () => {
    const all = examples.join('\n');
    for (const call of [
      'openRepository(',
      '.apply(',
      '.check(',
      '.undo(',
      '.redo(',
      '.log(',
      '.show(',
      '.record(',
      '.recover(',
      '.begin(',
      '.preview(',
      '.commit(',
      'PatchtxError',
    ])
      expect(all).toContain(call);
  });

  it('run as written, in order, in one checkout', () => {
    const dir = makeRepo('basic');
    const outputs = runExamples(examples, dir);
    // the first example's commit, as git reads it, with its trailer
    const hello = git(dir, 'log', '--format=%H', '-1', '--', 'hello.txt').trim();
    expect(outputs[0]).toContain(hello);
    expect(git(dir, 'show', '-s', '--format=%s|%(trailers:key=Agent-Run,valueonly)', hello).trim()).toBe('Add hello.txt|42');
    // the check wrote nothing: hello.txt is still as the first example made it
    expect(git(dir, 'show', 'HEAD:hello.txt')).toBe('hello\n');
    // the transaction: one commit of its two good steps, made before the last example's two
    const plan = git(dir, 'log', '--format=%H', '-1', '--', 'plan.txt').trim();
    expect(outputs.at(-2)).toMatch(/^context_not_found\n/);
    expect(outputs.at(-2)).toContain('+step one\n+step two\n');
    expect(outputs.at(-2)).toContain(plan);
    expect(git(dir, 'show', '-s', '--format=%s', plan)).toBe('Write the plan\n');
    expect(git(dir, 'show', `${plan}:plan.txt`)).toBe('step one\nstep two\n');
    expect(git(dir, 'rev-list', '--count', `${plan}..HEAD`).trim()).toBe('2');
    expect(git(dir, 'status', '--porcelain', '--', 'plan.txt')).toBe('');
    // the last one: the delete was refused as stale, after its two commits
    expect(outputs.at(-1)).toMatch(new RegExp(`^stale ${git(dir, 'rev-parse', 'HEAD').trim()}\\n$`));
    expect(git(dir, 'show', 'HEAD:todo.txt')).toBe('one\ntwo\n');
    expect(git(dir, 'status', '--porcelain', '--', 'hello.txt', 'todo.txt')).toBe('');
    expectFsckClean(dir);
  });
});

describe("the library's documented push examples", () => {
  const examples = readmeExamples('## Pushing from a program');

  it('run as written, in order, in a clone whose remote branch moved on', async () => {
    expect(examples.join('\n')).toContain('.push(');
    const { bare, clone, url } = await seededRemote(localHost());
    const theirs = await anotherBotPushes(url);
    const [applied, pushed] = runExamples(examples, clone);
    // the patch applied again onto the other clone's commit, and that commit pushed
    const added = git(bare, 'rev-parse', 'main~1').trim();
    expect(applied).toBe(`${added} 1\n`);
    expect(git(bare, 'rev-parse', 'main~2').trim()).toBe(theirs);
    expect(git(bare, 'show', '-s', '--format=%s', added).trim()).toBe('Add two');
    // the second: a commit made here, then pushed from where the first left origin's main
    expect(pushed).toBe(`${added} ${git(bare, 'rev-parse', 'main').trim()}\n`);
    expect(git(bare, 'show', 'main:a.txt')).toBe('one\ntwo\nthree\n');
    expect(git(bare, 'notes', '--ref', 'patchtx', 'show', 'main')).toContain('+three');
    expectFsckClean(bare);
  });
});
