import { describe, expect, it } from 'vitest';
import { GitConfig } from '../../../src/git/config.js';
import { configureFsync, shouldFsync, type FsyncComponent } from '../../../src/git/fsync-policy.js';

const ALL: FsyncComponent[] = ['reference', 'index', 'loose-object'];

function policy(configText: string): FsyncComponent[] {
  configureFsync(GitConfig.fromText(configText));
  return ALL.filter(shouldFsync);
}

describe('core.fsync policy', () => {
  it("follows git's default: none of refs, index and loose objects", () => {
    expect(policy('')).toEqual([]);
    expect(policy('[core]\n\tfsync = default\n')).toEqual([]);
  });
  it('reads components, aggregates and removals', () => {
    expect(policy('[core]\n\tfsync = reference,index\n')).toEqual(['reference', 'index']);
    expect(policy('[core]\n\tfsync = committed\n')).toEqual(['reference', 'loose-object']);
    expect(policy('[core]\n\tfsync = all,-index\n')).toEqual(['reference', 'loose-object']);
    expect(policy('[core]\n\tfsync = pack,commit-graph\n')).toEqual([]);
  });
  it('honours the older core.fsyncObjectFiles', () => {
    expect(policy('[core]\n\tfsyncObjectFiles = true\n')).toEqual(['loose-object']);
  });
});
