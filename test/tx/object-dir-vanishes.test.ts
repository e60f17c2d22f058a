// Next to `git gc` / `git prune-packed`, the fan-out directory a loose object is being written
// into can be removed between patchtx creating it and creating the object's temporary file in it
// (prune-packed removes every fan-out directory it leaves empty). The write must make the
// directory again and go on, as git's own object writes do. A transaction writes a pack; objects
// written outside one (a notes commit made again after the notes ref moved, say) are loose: such
// a write is held right after it made the directory while another thread removes it, as
// prune-packed would.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, git, gitEnv } from '../helpers/repos.js';
import { withEnv } from '../helpers/scratch.js';
import { openFixture } from '../git/util.js';

afterAll(cleanupRepos);

const blobId = (content: string): string => spawnSync('git', ['hash-object', '--stdin'], { input: content, env: gitEnv, encoding: 'utf8' }).stdout.trim();

/** A thread that waits until the write is held, removes `dir` (which must be empty) and lets the write go on. */
function removeWhenHeld(release: string, dir: string): Worker {
  const code = `
    const fs = require('node:fs');
    const { release, dir } = require('node:worker_threads').workerData;
    const tick = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 6000 && !fs.existsSync(release + '.held'); i++) Atomics.wait(tick, 0, 0, 10);
    fs.rmdirSync(dir);
    fs.writeFileSync(release, '');
  `;
  return new Worker(code, { eval: true, workerData: { release, dir } });
}

describe('an object directory removed while an object is written into it', () => {
  it('is made again and the object is written', async () => {
    const { dir, store } = await openFixture('basic');
    const objects = path.join(dir, '.git', 'objects');
    // an object whose fan-out directory the repository does not have yet
    let content = '';
    for (let i = 0; ; i++) {
      content = `new content ${i}\n`;
      if (!existsSync(path.join(objects, blobId(content).slice(0, 2)))) break;
    }
    const fanout = path.join(objects, blobId(content).slice(0, 2));
    const release = path.join(dir, '..', 'go');
    const worker = removeWhenHeld(release, fanout);
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const oid = await withEnv({ PATCHTX_TEST_PAUSE_AT: 'loose-object-dir', PATCHTX_TEST_PAUSE_UNTIL: release }, () => store.writeBlob(Buffer.from(content)));
    expect(await exited).toBe(0);
    expect(existsSync(`${release}.held`)).toBe(true);
    expect(oid).toBe(blobId(content));
    expect(git(dir, 'cat-file', 'blob', oid)).toBe(content);
    expect(readdirSync(fanout).filter((n) => n.startsWith('tmp_'))).toEqual([]);
    expect(git(dir, 'fsck', '--no-progress', '--no-dangling').trim()).toBe('');
    store.close();
  });
});
