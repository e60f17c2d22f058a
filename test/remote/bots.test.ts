// Many bots, one server: 8 clones (each its own "machine"), 10 patches each on files of their own,
// applied and pushed by one `apply --push --retry 5` of the built program (one commit a patch), all
// bots at once through one real smart-HTTP server. Every commit lands exactly once, the server's history is one line of them,
// git fsck is clean there, and each commit's patch text is in the server's refs/notes/patchtx.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanupBuiltCli, requireBuiltCli, runCli } from '../helpers/cli.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { git, gitOk } from '../helpers/repos.js';
import { cleanupScratch, isolateGitEnv, patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const BOTS = 8;
const PATCHES = 10;
/** patches a bot applies and pushes in one invocation */
const PER_RUN = 10;

let root: string;
let server: GitHttpServer;

beforeAll(async () => {
  isolateGitEnv();
  requireBuiltCli();
  root = tempDir();
  server = await startGitHttpServer(root);
});

afterAll(async () => {
  await server.close();
  cleanupScratch();
  cleanupBuiltCli();
});

/** A bot: its clone, then its patches, PER_RUN at a time (one commit each), each run pushed with --retry 5. */
async function bot(url: string, b: number): Promise<{ commits: string[]; retries: number }> {
  const clone = path.join(tempDir(), `bot${b}`);
  await gitOk(root, 'clone', '-q', url, clone);
  git(clone, 'config', 'user.name', `Bot ${b}`);
  git(clone, 'config', 'user.email', `bot${b}@example.invalid`);
  const commits: string[] = [];
  let retries = 0;
  for (let run = 0; run < PATCHES / PER_RUN; run++) {
    const numbers = Array.from({ length: PER_RUN }, (_, k) => run * PER_RUN + k);
    const patches = numbers.map((i) => patchFile(v4a(`*** Add File: bot${b}/f${i}.txt`, `+bot ${b} patch ${i}`)));
    const r = await runCli(['apply', '--repo', clone, '--push', '--retry', '5', '--json', ...patches]);
    expect(r.status, `bot ${b} run ${run}: ${r.stdout}${r.stderr}`).toBe(0);
    const pushed = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(pushed.warnings, `bot ${b} run ${run}: ${r.stderr}`).toEqual([]);
    commits.push(
      ...(pushed.reapplied ??
        r.stdout
          .trim()
          .split('\n')
          .slice(0, PER_RUN)
          .map((l) => JSON.parse(l).commit)),
    );
    retries += pushed.retries ?? 0;
  }
  return { commits, retries };
}

it(`${BOTS} bots, ${PATCHES} patches each, --push --retry 5 through one server: every commit lands once, with its note`, { timeout: 600_000 }, async () => {
  const bare = path.join(root, 'shared.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(bare, 'config', 'http.receivepack', 'true');
  const seed = path.join(tempDir(), 'seed');
  git(root, 'init', '-q', '-b', 'main', seed);
  writeFileSync(path.join(seed, 'README'), 'shared\n');
  git(seed, 'add', 'README');
  git(seed, 'commit', '-q', '-m', 'seed');
  git(seed, 'push', '-q', bare, 'main');
  const url = `${server.base}shared.git`;

  const results = await Promise.all(Array.from({ length: BOTS }, (_, b) => bot(url, b)));

  // one line of history: the seed and every bot's every patch, each exactly once
  const subjects = git(bare, 'log', '--first-parent', '--format=%s', 'main').trim().split('\n');
  expect(subjects).toHaveLength(BOTS * PATCHES + 1);
  expect(git(bare, 'rev-list', '--merges', '--count', 'main').trim()).toBe('0');
  const expected = Array.from({ length: BOTS }, (_, b) => Array.from({ length: PATCHES }, (_, i) => `Apply patch: add bot${b}/f${i}.txt`)).flat();
  expect([...subjects.slice(0, -1)].sort()).toEqual([...expected].sort());
  // each bot's patches in its own order
  for (let b = 0; b < BOTS; b++) {
    const own = subjects.filter((s) => s.startsWith(`Apply patch: add bot${b}/`)).reverse();
    expect(own).toEqual(expected.slice(b * PATCHES, (b + 1) * PATCHES));
  }
  // the commits the bots last reported are the ones on the server, with all their files
  const onServer = git(bare, 'rev-list', 'main').trim().split('\n');
  for (const r of results) for (const c of r.commits) expect(onServer).toContain(c);
  const files = git(bare, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n');
  expect(files).toHaveLength(BOTS * PATCHES + 1);
  // every commit's patch text is in the server's notes
  const noted = new Set(
    git(bare, 'notes', '--ref', 'patchtx', 'list')
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[1]),
  );
  for (const c of onServer.slice(0, -1)) expect(noted.has(c), `the note of ${c}`).toBe(true);
  expectFsckClean(bare);
  // the race did happen: some pushes lost their lease and were applied again
  expect(results.reduce((n, r) => n + r.retries, 0)).toBeGreaterThan(0);
});
