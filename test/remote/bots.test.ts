// Many bots, one server: 8 clones (each its own "machine"), 10 patches each on files of their own,
// each patch applied and pushed by its own `apply --push --retry 5` of the built program, all bots at
// once through one real smart-HTTP server: 80 pushes racing for one branch. Every commit lands
// exactly once, the server's history is one line of them, git fsck is clean there, and each
// commit's patch text is in the server's refs/notes/patchtx.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useHttpHost } from '../helpers/remote.js';
import { git, gitOk } from '../helpers/repos.js';
import { patchFile, tempDir, v4a } from '../helpers/scratch.js';
import { expectFsckClean } from '../helpers/snapshot.js';

const BOTS = 8;
const PATCHES = 10;

const host = useHttpHost();

interface Bot {
  /** the commits the bot's runs last reported, in order */
  commits: string[];
  /** how many times each run applied its patch again */
  retries: number[];
  /** the run that failed, and its output (the bot stops there) */
  failed?: string;
}

/** A bot: its clone, then its patches, one `apply --push --retry 5` each (one commit each). */
async function bot(url: string, b: number): Promise<Bot> {
  const clone = path.join(tempDir(), `bot${b}`);
  await gitOk(host().root, 'clone', '-q', url, clone);
  git(clone, 'config', 'user.name', `Bot ${b}`);
  git(clone, 'config', 'user.email', `bot${b}@example.invalid`);
  const result: Bot = { commits: [], retries: [] };
  for (let i = 0; i < PATCHES; i++) {
    const patch = patchFile(v4a(`*** Add File: bot${b}/f${i}.txt`, `+bot ${b} patch ${i}`));
    const r = await runCli(['apply', '--repo', clone, '--push', '--retry', '5', '--json', patch]);
    const lines = r.stdout.trim().split('\n');
    const pushed = r.status === 0 ? JSON.parse(lines.pop()!) : null;
    // every bot runs to its end, so that none is still pushing when the server is checked
    if (pushed === null || pushed.warnings.length > 0) return { ...result, failed: `bot ${b} patch ${i}: exit ${r.status}\n${r.stdout}${r.stderr}` };
    result.commits.push(pushed.reapplied?.[0] ?? JSON.parse(lines[0]!).commit);
    result.retries.push(pushed.retries ?? 0);
  }
  return result;
}

it(`${BOTS} bots, ${PATCHES} patches each, --push --retry 5 through one server: every commit lands once, with its note`, { timeout: 600_000 }, async () => {
  const bare = path.join(host().root, 'shared.git');
  git(host().root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(bare, 'config', 'http.receivepack', 'true');
  const seed = path.join(tempDir(), 'seed');
  git(host().root, 'init', '-q', '-b', 'main', seed);
  writeFileSync(path.join(seed, 'README'), 'shared\n');
  git(seed, 'add', 'README');
  git(seed, 'commit', '-q', '-m', 'seed');
  git(seed, 'push', '-q', bare, 'main');
  const url = `${host().base}shared.git`;

  const results = await Promise.all(Array.from({ length: BOTS }, (_, b) => bot(url, b)));
  const retries = results.flatMap((r) => r.retries);
  const spread = `retries per run: ${JSON.stringify(retries.reduce((n: number[], k) => ((n[k] = (n[k] ?? 0) + 1), n), []))}`;
  expect(
    results.flatMap((r) => r.failed ?? []),
    spread,
  ).toEqual([]);

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
  expect(
    retries.reduce((n, k) => n + k, 0),
    spread,
  ).toBeGreaterThan(0);
});
