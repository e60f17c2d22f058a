// npm run demo: builds a git repository from fixtures-repos/sample in a temporary directory,
// applies fixtures-repos/sample.patch with patchtx, and shows the summary, the diff and the commit.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.join(mkdtempSync(path.join(tmpdir(), 'patchtx-demo-')), 'sample');
execFileSync(path.join(root, 'fixtures-repos/build.sh'), ['fromdir', repo], {
  env: { ...process.env, FIXTURE_SOURCE: path.join(root, 'fixtures-repos/sample') },
  stdio: 'inherit',
});

const say = (text) => process.stdout.write(`\n\x1b[1m$ ${text}\x1b[0m\n`);
say(`patchtx apply --diff fixtures-repos/sample.patch   (in ${repo})`);
const applied = spawnSync(process.execPath, [path.join(root, 'dist/patchtx.cjs'), 'apply', '--diff', path.join(root, 'fixtures-repos/sample.patch')], {
  cwd: repo,
  stdio: 'inherit',
});
if (applied.status !== 0) process.exit(applied.status ?? 1);

for (const args of [['log', '--stat', '-1'], ['status', '--short'], ['fsck']]) {
  say(`git ${args.join(' ')}`);
  execFileSync('git', args, { cwd: repo, stdio: 'inherit' });
}
say('patchtx log');
spawnSync(process.execPath, [path.join(root, 'dist/patchtx.cjs'), 'log'], { cwd: repo, stdio: 'inherit' });
process.stdout.write(`\nThe repository is left at ${repo}; try: cd ${repo} && node ${path.join(root, 'dist/patchtx.cjs')} undo\n`);
