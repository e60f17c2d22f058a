import { describe, expect, it } from 'vitest';
import { GitConfig } from '../../../src/git/repo/config.js';
import { fsyncPolicy, shouldFsync, type FsyncComponent } from '../../../src/git/repo/fsync-policy.js';

const ALL: FsyncComponent[] = ['loose-object', 'pack', 'pack-metadata', 'commit-graph', 'index', 'reference'];
const DEFAULT: FsyncComponent[] = ['pack', 'pack-metadata', 'commit-graph'];

function policy(configText: string): FsyncComponent[] {
  const repo = { fsync: fsyncPolicy(GitConfig.fromText(configText)) };
  return ALL.filter((c) => shouldFsync(repo, c));
}

const fsync = (value: string) => policy(`[core]\n\tfsync = ${value}\n`);

describe('core.fsync policy', () => {
  it("follows git's default: packs and their metadata, not refs, the index or loose objects", () => {
    expect(policy('')).toEqual(DEFAULT);
    expect(fsync('none')).toEqual([]);
  });
  it('adds components and aggregates to the default set', () => {
    expect(fsync('reference,index')).toEqual([...DEFAULT, 'index', 'reference']);
    expect(fsync('committed')).toEqual(['loose-object', ...DEFAULT, 'reference']);
    expect(fsync('pack,commit-graph')).toEqual(DEFAULT);
  });
  it('removes with a leading -, but a component also added stays', () => {
    expect(fsync('-pack-metadata')).toEqual(['pack', 'commit-graph']);
    expect(fsync('all,-index')).toEqual(ALL);
  });
  it('reads a word as a prefix of component names, as git does', () => {
    expect(fsync('-pack')).toEqual(['commit-graph']); // pack and pack-metadata
    expect(fsync('ind')).toEqual([...DEFAULT, 'index']);
    expect(fsync('bogus')).toEqual(DEFAULT);
  });
  it('clears with none only when it is the rest of the value', () => {
    expect(fsync('reference,none')).toEqual(['reference']);
    expect(fsync('none,reference')).toEqual([...DEFAULT, 'reference']);
  });
  it('honours the older core.fsyncObjectFiles', () => {
    expect(policy('[core]\n\tfsyncObjectFiles = true\n')).toEqual(['loose-object', ...DEFAULT]);
  });
});
