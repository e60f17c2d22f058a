// The plan made before the lock is taken: used under the lock only when every file and directory
// it was made from is as it was, and then exactly as made (or its error, as thrown).
import { describe, expect, it } from 'vitest';
import { planPatch } from '../../src/engine/plan.js';
import { PatchtxError } from '../../src/errors.js';
import { parsePatch } from '../../src/patch/parse.js';
import { TouchedFiles } from '../../src/tx/touched-files.js';
import { planAhead, planMadeAhead } from '../../src/commands/plan-ahead.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const patch = parsePatch(
  ['*** Begin Patch', '*** Update File: src/a.txt', '@@', ' one', '-two', '+TWO', '*** Add File: src/b/new.txt', '+new', '*** End Patch'].join('\n'),
);

function files(a: string, withDir = false): TouchedFiles {
  const overlay = new TouchedFiles();
  overlay.putFile('src/a.txt', bytes(a));
  if (withDir) overlay.markDirectory('src/b/new.txt');
  return overlay;
}

describe('planAhead and planMadeAhead', () => {
  it('the same files: the plan made ahead, identical to one made now', () => {
    const ahead = planAhead(patch, files('one\ntwo\n'), {});
    expect([...ahead.reads.keys()]).toEqual(expect.arrayContaining(['src/a.txt', 'src/b/new.txt']));
    const reused = planMadeAhead(ahead, files('one\ntwo\n'));
    expect(reused).toBeDefined();
    expect(reused).toBe('plan' in ahead.outcome ? ahead.outcome.plan : undefined);
    expect(reused).toEqual(planPatch(patch, files('one\ntwo\n'), {}));
  });

  it('a file read has changed, appeared or gone, or a path became a directory: not used', () => {
    const ahead = planAhead(patch, files('one\ntwo\n'), {});
    expect(planMadeAhead(ahead, files('one\ntwo\nthree\n'))).toBeUndefined();
    expect(planMadeAhead(ahead, new TouchedFiles())).toBeUndefined();
    expect(planMadeAhead(ahead, files('one\ntwo\n', true))).toBeUndefined();
    const missing = planAhead(patch, new TouchedFiles(), {});
    expect(planMadeAhead(missing, files('one\ntwo\n'))).toBeUndefined();
  });

  it('an error made ahead is thrown again when nothing changed, and forgotten when something did', () => {
    const ahead = planAhead(patch, files('one\nzwei\n'), {});
    expect('error' in ahead.outcome).toBe(true);
    expect(() => planMadeAhead(ahead, files('one\nzwei\n'))).toThrow(PatchtxError);
    expect(() => planMadeAhead(ahead, files('one\nzwei\n'))).toThrow(/Failed to find expected lines in src\/a.txt/);
    expect(planMadeAhead(ahead, files('one\ntwo\n'))).toBeUndefined();
  });
});
