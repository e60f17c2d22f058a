import { describe, expect, it } from 'vitest';
import { directoryProblem, plainPath } from '../../src/patch/paths.js';

/** plainPath's rule spelled out: every path split at '/', empty segments (but a leading one) and,
 * with `dots`, '.' segments dropped; a directory's path, or one left empty, as written. */
function bySegments(path: string, dots: boolean): string {
  if (directoryProblem(path) !== null) return path;
  const kept = path.split('/').filter((s, i) => (s !== '' || i === 0) && !(dots && s === '.'));
  return kept.length === 0 || (kept.length === 1 && kept[0] === '') ? path : kept.join('/');
}

describe('plainPath', () => {
  it('drops repeated slashes and, with dots, "." segments', () => {
    expect(plainPath('./src//x', true)).toBe('src/x');
    expect(plainPath('./src//x', false)).toBe('./src/x');
    expect(plainPath('a/./b', true)).toBe('a/b');
    expect(plainPath('src/x.ts', true)).toBe('src/x.ts');
    expect(plainPath('src/', true)).toBe('src/');
  });

  it('agrees with the rule on every path of up to six characters of "a", "/" and "."', () => {
    let paths = [''];
    for (let n = 0; n < 6; n++) {
      paths = [...paths, ...paths.filter((p) => p.length === n).flatMap((p) => ['a', '/', '.'].map((c) => p + c))];
    }
    expect(paths.length).toBe(1093);
    for (const p of paths) for (const dots of [true, false]) expect([p, dots, plainPath(p, dots)]).toEqual([p, dots, bySegments(p, dots)]);
  });
});
