// Final newlines: the Agents SDK's applyDiff and Codex's apply_patch disagree on them, and the
// Responses/Editor surface (patchtx/openai) follows the SDK by default while `patchtx apply` keeps
// Codex's rules. The table below is the comparison, case by case; each column is checked against
// the implementation it names (the SDK's own applyDiff, patchtx's Codex-rule apply, and the
// surface), on real repositories.
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { applyDiff } from '@openai/agents-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../src/index.js';
import { applyResponseItems } from '../../src/openai/index.js';
import { cleanupRepos, git, makeRepo } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv } from '../helpers/scratch.js';

beforeAll(() => isolateGitEnv());
afterAll(() => {
  cleanupRepos();
  cleanupScratch();
});

interface Case {
  what: string;
  /** the file before (null: created by the diff) */
  before: string | null;
  diff: string;
  /** what the Agents SDK's applyDiff makes of it */
  sdk: string;
  /** what Codex's rules (patchtx apply, apply_patch) make of it */
  codex: string;
  /** what patchtx/openai makes of it, where that is not the SDK's: a CRLF file keeps its endings */
  surface?: string;
}

// prettier-ignore
const TABLE: Case[] = [
  { what: 'create, diff ends with a newline',           before: null,           diff: '+a\n+b\n',               sdk: 'a\nb',         codex: 'a\nb\n' },
  { what: 'create, diff without a final newline',       before: null,           diff: '+a\n+b',                 sdk: 'a\nb',         codex: 'a\nb\n' },
  { what: 'create, a last empty + line',                before: null,           diff: '+a\n+b\n+\n',            sdk: 'a\nb\n',       codex: 'a\nb\n\n' },
  { what: 'create, a diff in CRLF lines',               before: null,           diff: '+a\r\n+b\r\n',           sdk: 'a\nb',         codex: 'a\nb\n' },
  { what: 'create, empty',                              before: null,           diff: '',                       sdk: '',             codex: '' },
  { what: 'update of a file with a final newline',      before: 'a\nb\n',       diff: '@@\n a\n-b\n+c\n',       sdk: 'a\nc\n',       codex: 'a\nc\n' },
  { what: 'update of its last line, none at the end',   before: 'a\nb',         diff: '@@\n a\n-b\n+c\n',       sdk: 'a\nc',         codex: 'a\nc\n' },
  { what: 'append after a last line without newline',   before: 'a\nb',         diff: '@@\n a\n b\n+c\n',       sdk: 'a\nb\nc',      codex: 'a\nb\nc\n' },
  { what: 'update of the first line, none at the end',  before: 'a\nb',         diff: '@@\n-a\n+x\n',           sdk: 'x\nb',         codex: 'x\nb\n' },
  { what: 'append at *** End of File',                  before: 'a\nb\n',       diff: '@@\n b\n+c\n*** End of File\n', sdk: 'a\nb\nc\n', codex: 'a\nb\nc\n' },
  { what: 'every line deleted, none at the end',        before: 'a\nb',         diff: '@@\n-a\n-b\n',           sdk: '',             codex: '' },
  { what: 'update of an empty file',                    before: '',             diff: '+x\n',                   sdk: 'x\n',          codex: 'x\n' },
  { what: 'CRLF file: new lines in CRLF too',            before: 'a\r\nb\r\n',   diff: '@@\n a\n-b\n+c\n',       sdk: 'a\r\nc\n',     codex: 'a\r\nc\r\n', surface: 'a\r\nc\r\n' },
  { what: 'CRLF file, none at the end',                 before: 'a\r\nb',       diff: '@@\n a\n-b\n+c\n',       sdk: 'a\r\nc',       codex: 'a\r\nc\r\n' },
];

const fileOf = (k: number): string => `cases/case-${k}.txt`;

/** A repository holding every case's file as `before` has it, committed. */
function repoWithCases(): string {
  const dir = makeRepo('basic');
  mkdirSync(path.join(dir, 'cases'));
  TABLE.forEach((c, k) => {
    if (c.before !== null) writeFileSync(path.join(dir, fileOf(k)), c.before);
  });
  // the files' bytes exactly as written (no end-of-line conversion by any configuration)
  git(dir, '-c', 'core.autocrlf=false', 'add', 'cases');
  git(dir, 'commit', '-q', '-m', 'cases');
  return dir;
}

const operationOf = (c: Case, k: number) =>
  c.before === null ? { type: 'create_file', path: fileOf(k), diff: c.diff } : { type: 'update_file', path: fileOf(k), diff: c.diff };

describe('final newlines: the Agents SDK against Codex', () => {
  it("the table's SDK column is what the SDK's own applyDiff does", () => {
    for (const c of TABLE) expect([c.what, applyDiff(c.before ?? '', c.diff, c.before === null ? 'create' : 'default')]).toEqual([c.what, c.sdk]);
  });

  it("the table's Codex column is what patchtx apply does (one V4A patch of every case)", async () => {
    const dir = repoWithCases();
    const repo = await openRepository({ dir });
    const sections = TABLE.map((c, k) => {
      const body = c.diff === '' || c.diff.endsWith('\n') ? c.diff : `${c.diff}\n`;
      return `${c.before === null ? '*** Add File: ' : '*** Update File: '}${fileOf(k)}\n${body}`;
    });
    await repo.apply(`*** Begin Patch\n${sections.join('')}*** End Patch\n`);
    TABLE.forEach((c, k) => expect([c.what, git(dir, 'show', `HEAD:${fileOf(k)}`)]).toEqual([c.what, c.codex]));
  });

  it("applyResponseItems follows the SDK column by default, but keeps a CRLF file's endings; with dialect 'codex', the Codex column", async () => {
    for (const dialect of [undefined, 'codex'] as const) {
      const dir = repoWithCases();
      const repo = await openRepository({ dir });
      const items = TABLE.map((c, k) => ({ type: 'apply_patch_call', call_id: `call_${k}`, status: 'completed', operation: operationOf(c, k) }));
      const outputs = await applyResponseItems(repo, items, dialect === undefined ? {} : { dialect });
      expect(outputs.map((o) => o.status)).toEqual(TABLE.map(() => 'completed'));
      TABLE.forEach((c, k) => {
        const expected = dialect === 'codex' ? c.codex : (c.surface ?? c.sdk);
        expect([dialect, c.what, git(dir, 'show', `HEAD:${fileOf(k)}`)]).toEqual([dialect, c.what, expected]);
      });
    }
  });

  it("the two dialects' commits of the same diff have different Patch-Ids (their files differ)", async () => {
    const ids = [];
    for (const dialect of ['agents-sdk', 'codex'] as const) {
      const dir = makeRepo('basic');
      const repo = await openRepository({ dir });
      const items = [{ type: 'apply_patch_call', call_id: 'call_1', operation: { type: 'create_file', path: 'new.txt', diff: '+one\n' } }];
      expect((await applyResponseItems(repo, items, { dialect }))[0]!.status).toBe('completed');
      ids.push(git(dir, 'log', '-1', '--format=%(trailers:key=Patch-Id,valueonly)').trim());
      expect(git(dir, 'show', 'HEAD:new.txt')).toBe(dialect === 'codex' ? 'one\n' : 'one');
    }
    expect(ids[0]).toMatch(/^[0-9a-f]{40}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
