// Where a logged patch's paths land: the call's directory, a heredoc's cd, absolute paths, and
// directory maps, on entries built here (the readers are tested in test/logs).
import { describe, expect, it } from 'vitest';
import { parseMaps, repositoryPatch } from '../../src/commands/replay-paths.js';
import { PatchtxError } from '../../src/errors.js';
import type { LogEntry } from '../../src/logs/types.js';
import { parsePatch } from '../../src/patch/parse.js';

const entry = (patch: string, cwd: string | null, sessionCwd: string | null = cwd): LogEntry => ({
  index: 4,
  format: 'codex-rollout',
  callId: 'call-x',
  session: 's',
  turn: null,
  line: 1,
  via: 'test',
  patch,
  cwd,
  sessionCwd,
  outcome: 'success',
});

const paths = (text: string): string[] => parsePatch(text).hunks.flatMap((h) => (h.kind === 'update' && h.moveTo !== null ? [h.path, h.moveTo] : [h.path]));
const add = (p: string): string => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch\n`;

function rejected(fn: () => unknown): PatchtxError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PatchtxError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('repositoryPatch', () => {
  it("takes relative paths from the call's directory below the session's", () => {
    expect(paths(repositoryPatch(entry(add('a.txt'), '/w/proj/pkg', '/w/proj'), []))).toEqual(['pkg/a.txt']);
  });

  it("adds a heredoc's cd, relative or absolute", () => {
    const heredoc = (dir: string): string => `cd ${dir} && apply_patch <<'EOF'\n${add('b.txt')}EOF\n`;
    expect(paths(repositoryPatch(entry(heredoc('sub'), '/w/proj'), []))).toEqual(['sub/b.txt']);
    expect(paths(repositoryPatch(entry(heredoc('/w/proj/lib'), '/w/proj'), []))).toEqual(['lib/b.txt']);
  });

  it('maps absolute paths and moves through the longest matching map', () => {
    const move = '*** Begin Patch\n*** Update File: /w/proj/a.txt\n*** Move to: /w/shared/a.txt\n*** End Patch\n';
    const maps = parseMaps(['/w=outer', '/w/shared=vendor/shared', '/w/proj=.']);
    expect(paths(repositoryPatch(entry(move, '/w/proj'), maps))).toEqual(['a.txt', 'vendor/shared/a.txt']);
  });

  it('refuses a path outside every mapped directory, or leaving it by .., naming the entry', () => {
    for (const p of ['/etc/passwd', '../elsewhere.txt']) {
      const e = rejected(() => repositoryPatch(entry(add(p), '/w/proj'), []));
      expect(e.kind).toBe('path_rejected');
      expect(e.message).toMatch(/^entry 5 \(call call-x\): /);
      expect(e.data).toMatchObject({ path: p, entry: 5, callId: 'call-x' });
    }
  });

  it("without a recorded directory, relative paths are the repository's and absolute ones need a map", () => {
    expect(paths(repositoryPatch(entry(add('docs/a.md'), null), []))).toEqual(['docs/a.md']);
    expect(rejected(() => repositoryPatch(entry(add('/abs/a.md'), null), [])).kind).toBe('path_rejected');
    expect(rejected(() => repositoryPatch(entry(add('../a.md'), null), [])).kind).toBe('path_rejected');
    expect(paths(repositoryPatch(entry(add('/abs/a.md'), null), parseMaps(['/abs=x'])))).toEqual(['x/a.md']);
  });
});

describe('parseMaps', () => {
  it('refuses a map without =, a relative OLD, or a NEW outside the repository', () => {
    for (const spec of ['/a', 'rel=x', '/a=/b', '/a=../b']) expect(rejected(() => parseMaps([spec])).kind).toBe('usage');
  });
});
