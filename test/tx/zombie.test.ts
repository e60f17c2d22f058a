// A killed patchtx whose parent has not reaped it yet is a zombie: its pid answers kill(pid, 0),
// but it runs nothing and never will. In a container whose first process does not reap orphans,
// it stays so, and a journal it left must not be taken for a live transaction forever.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { cleanupRepos, git, gitEnv, makeRepo } from '../helpers/repos.js';
import { waitFor } from '../helpers/schedule.js';

beforeAll(requireBuiltCli);
afterAll(() => {
  cleanupRepos();
  cleanupBuiltCli();
});

const stateOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
};

describe.skipIf(!existsSync('/proc/self/stat'))('a run killed and not reaped (a zombie)', () => {
  it('is dead to recovery: its journal is recovered, not taken for a live transaction', async () => {
    const dir = makeRepo('basic');
    const patch = path.join(dir, '..', 'change.patch');
    writeFileSync(patch, '*** Begin Patch\n*** Add File: zombie.txt\n+z\n*** End Patch\n');
    const release = path.join(dir, '..', 'go');
    const pidFile = path.join(dir, '..', 'pid');
    // the run is started in the background by a shell that then becomes `sleep`, which does not
    // reap it: killed, it stays a zombie until the sleep ends
    const parent = spawn(
      'sh',
      ['-c', `"$0" "$1" apply --repo "$2" "$3" & echo $! > "$4"; exec sleep 20`, process.execPath, binPath('patchtx'), dir, patch, pidFile],
      { env: { ...gitEnv, PATCHTX_TEST_PAUSE_AT: 'after-publish-journal', PATCHTX_TEST_PAUSE_UNTIL: release }, stdio: 'ignore' },
    );
    try {
      await waitFor(() => existsSync(`${release}.held`) && existsSync(pidFile), 'the run published its journal');
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      process.kill(pid, 'SIGKILL');
      await waitFor(() => stateOf(pid) === 'Z', 'the run is a zombie');
      const r = await runCli(['recover', '--repo', dir, '--json']);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).recovered).toMatchObject({ outcome: 'dropped' });
      git(dir, 'fsck', '--no-progress');
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
