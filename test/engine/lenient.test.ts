// Chunks that match only on a lenient pass. A chunk found with its leading whitespace ignored
// gets its `+` lines re-indented by the mapping that turns the patch's context indentation into
// the file's, so the result is the program the patch meant (checked with the language's own
// parser: python3's ast, PyYAML, make -n). Every lenient match is a warning naming the pass and
// the lines; strict mode accepts exact matches and trailing whitespace only.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failure, patchOf, plan, text } from './support.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'patchtx-lenient-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function written(name: string, content: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, content);
  return file;
}

/** python3's own parser accepts the source (IndentationError and TabError included). */
function pythonParses(source: string): boolean {
  const file = written('check.py', source);
  return spawnSync('python3', ['-c', 'import ast,sys; ast.parse(open(sys.argv[1]).read())', file]).status === 0;
}

/** The YAML document as JSON, read by PyYAML. */
function yamlData(source: string): unknown {
  const file = written('check.yaml', source);
  return JSON.parse(execFileSync('python3', ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file], { encoding: 'utf8' }));
}

/** `make -n` runs the Makefile's rules without executing them: status and what it would run. */
function makeDryRun(source: string): { status: number | null; out: string } {
  const dir = mkdtempSync(path.join(scratch, 'make-'));
  writeFileSync(path.join(dir, 'Makefile'), source);
  const r = spawnSync('make', ['-n', '-C', dir, '--no-print-directory'], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

function applied(patchLines: string[], files: Record<string, string>, strict = false) {
  const p = plan(patchOf(...patchLines), files, { strict });
  return { file: (name: string) => text(p.files.get(name))!, warnings: p.warnings };
}

const PY = ['class Service:', '    def handle(self, x):', '        if x:', '            return 1', '        return 2', ''].join('\n');

describe('re-indenting + lines after a match with leading whitespace ignored', () => {
  it('Python, context written one level too shallow: the + lines go one level deeper', () => {
    expect(pythonParses(PY)).toBe(true);
    const r = applied(
      ['*** Update File: s.py', '@@', ' def handle(self, x):', '     if x:', '-        return 1', '+        y = x * 2', '+        return y', '     return 2'],
      { 's.py': PY },
    );
    expect(r.file('s.py')).toBe(PY.replace('            return 1\n', '            y = x * 2\n            return y\n'));
    expect(pythonParses(r.file('s.py'))).toBe(true);
  });

  it('Python, context written one level too deep: the + lines go one level shallower', () => {
    const src = 'def f(x):\n    if x:\n        return 1\n    return 2\n';
    const r = applied(
      [
        '*** Update File: f.py',
        '@@',
        '     def f(x):',
        '         if x:',
        '-            return 1',
        '+            if x > 9:',
        '+                return 9',
        '+            return 1',
        '         return 2',
      ],
      { 'f.py': src },
    );
    expect(r.file('f.py')).toBe('def f(x):\n    if x:\n        if x > 9:\n            return 9\n        return 1\n    return 2\n');
    expect(pythonParses(r.file('f.py'))).toBe(true);
  });

  it('Python indented with tabs, patch written with spaces: the + lines get tabs', () => {
    const src = 'def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n';
    expect(pythonParses(src)).toBe(true);
    const r = applied(
      [
        '*** Update File: t.py',
        '@@',
        ' def f(x):',
        '     if x:',
        '-        return 1',
        '+        y = x + 1',
        '+        if y:',
        '+            return y',
        '     return 2',
      ],
      { 't.py': src },
    );
    expect(r.file('t.py')).toBe('def f(x):\n\tif x:\n\t\ty = x + 1\n\t\tif y:\n\t\t\treturn y\n\treturn 2\n');
    expect(pythonParses(r.file('t.py'))).toBe(true);
  });

  it('YAML indented by four, patch by two: the + lines land in the same mapping', () => {
    const src = 'services:\n    web:\n        image: nginx\n        ports:\n            - "80:80"\n';
    const r = applied(
      [
        '*** Update File: c.yaml',
        '@@',
        ' services:',
        '   web:',
        '     image: nginx',
        '-    ports:',
        '-      - "80:80"',
        '+    ports:',
        '+      - "80:80"',
        '+      - "443:443"',
        '+    environment:',
        '+      DEBUG: "1"',
      ],
      { 'c.yaml': src },
    );
    expect(yamlData(r.file('c.yaml'))).toEqual({
      services: { web: { image: 'nginx', ports: ['80:80', '443:443'], environment: { DEBUG: '1' } } },
    });
  });

  it('YAML, context missing a level: the + lines stay under the key they belong to', () => {
    const src = 'app:\n  web:\n    image: nginx\n    replicas: 1\n';
    const r = applied(['*** Update File: c.yaml', '@@', ' web:', '   image: nginx', '-  replicas: 1', '+  replicas: 3', '+  labels:', '+    tier: front'], {
      'c.yaml': src,
    });
    expect(yamlData(r.file('c.yaml'))).toEqual({ app: { web: { image: 'nginx', replicas: 3, labels: { tier: 'front' } } } });
  });

  it('Makefile, recipe written with spaces: the + lines get the tab make needs', () => {
    const src = 'all: build\n\nbuild:\n\tcc -o app main.c\n\tstrip app\n';
    expect(makeDryRun(src).status).toBe(0);
    const r = applied(
      ['*** Update File: Makefile', '@@', ' build:', '-    cc -o app main.c', '+    cc -O2 -o app main.c', '+    echo built', '     strip app'],
      { Makefile: src },
    );
    expect(r.file('Makefile')).toBe('all: build\n\nbuild:\n\tcc -O2 -o app main.c\n\techo built\n\tstrip app\n');
    const dry = makeDryRun(r.file('Makefile'));
    expect(dry.status, dry.out).toBe(0);
    expect(dry.out).toContain('cc -O2 -o app main.c\necho built\nstrip app');
  });

  it('an exact match or one with only trailing whitespace ignored changes nothing of the + lines', () => {
    const src = 'def f():\n    return 1  \n';
    const r = applied(['*** Update File: f.py', '@@', '-    return 1', '+  return 2'], { 'f.py': src });
    expect(r.file('f.py')).toBe('def f():\n  return 2\n');
  });
});

describe('warnings for lenient matches, and strict mode', () => {
  it('names the pass and the file lines', () => {
    const r = applied(['*** Update File: s.py', '@@', ' def handle(self, x):', '     if x:', '-        return 1', '+        return 3'], { 's.py': PY });
    expect(r.warnings).toEqual([expect.objectContaining({ kind: 'lenient_match', path: 's.py', chunk: 1, line: 3, pass: 'trim', fileLines: [2, 4] })]);
    const message = (r.warnings[0] as { message: string }).message;
    expect(message).toContain('lines 2-4');
    expect(message).toContain('leading');
    expect(message).toContain('re-indented');
  });

  it('trailing whitespace only: a warning, and strict accepts it', () => {
    const src = 'a  \nb\n';
    const patch = ['*** Update File: a.txt', '@@', '-a', '+A'];
    expect(applied(patch, { 'a.txt': src }).warnings).toEqual([expect.objectContaining({ kind: 'lenient_match', pass: 'trim_end', fileLines: [1, 1] })]);
    expect(applied(patch, { 'a.txt': src }, true).file('a.txt')).toBe('A\nb\n');
  });

  it('typographic punctuation folded: a warning; strict refuses', () => {
    const src = 'say(\u201chi\u201d)\n';
    const patch = ['*** Update File: a.txt', '@@', '-say("hi")', '+say("bye")'];
    expect(applied(patch, { 'a.txt': src }).warnings).toEqual([expect.objectContaining({ kind: 'lenient_match', pass: 'fold' })]);
    const e = failure(() => applied(patch, { 'a.txt': src }, true));
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toContain('strict');
  });

  it('strict refuses a match that needed leading whitespace ignored, naming the lines', () => {
    const e = failure(() =>
      applied(['*** Update File: s.py', '@@', ' def handle(self, x):', '     if x:', '-        return 1', '+        return 3'], { 's.py': PY }, true),
    );
    expect(e.kind).toBe('context_not_found');
    expect(e.message).toContain('lines 2-4');
    expect(e.data).toMatchObject({ path: 's.py', chunk: 1, candidates: [2] });
  });

  it('an exact match has no warning', () => {
    expect(applied(['*** Update File: s.py', '@@', '-            return 1', '+            return 3'], { 's.py': PY }, true).warnings).toEqual([]);
  });
});
