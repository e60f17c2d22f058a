import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { hasScenarios, SCENARIOS_ABSENT, scenariosDir } from '../helpers/repos.js';
import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { parsePatch, parsePatchInvocation } from '../../src/patch/parse.js';
import type { Hunk } from '../../src/patch/types.js';

const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

function parseError(text: string): PatchtxError {
  try {
    parsePatch(text);
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    return e as PatchtxError;
  }
  throw new Error('parsed without error');
}

function expectError(text: string, message: string, line: number | undefined, kind = 'parse_error'): PatchtxError {
  const e = parseError(text);
  expect(e.message).toBe(message);
  expect(e.data.line).toBe(line);
  expect(e.kind).toBe(kind);
  return e;
}

const VALID_HEADERS = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'";
const EVERY_LINE = "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)";
const SPACE_HINT = ' (did you forget the leading space of a context line?)';

function update(h: Hunk | undefined) {
  if (h?.kind !== 'update') throw new Error(`not an update: ${JSON.stringify(h)}`);
  return h;
}

describe('parsePatch: hunks', () => {
  it('parses Add, Delete and Update with Move to', () => {
    const p = parsePatch(
      patch(
        '*** Add File: nested/new.txt',
        '+created',
        '+',
        '+  indented',
        '*** Delete File: delete.txt',
        '*** Update File: old/name.txt',
        '*** Move to: renamed/name.txt',
        '@@',
        ' keep',
        '-old content',
        '+new content',
      ),
    );
    expect(p.hunks).toEqual([
      { kind: 'add', path: 'nested/new.txt', contents: 'created\n\n  indented\n', line: 2 },
      { kind: 'delete', path: 'delete.txt', line: 6 },
      {
        kind: 'update',
        path: 'old/name.txt',
        moveTo: 'renamed/name.txt',
        line: 7,
        chunks: [
          {
            contexts: [],
            lines: [
              { op: ' ', text: 'keep' },
              { op: '-', text: 'old content' },
              { op: '+', text: 'new content' },
            ],
            oldLines: ['keep', 'old content'],
            newLines: ['keep', 'new content'],
            isEndOfFile: false,
            line: 9,
          },
        ],
      },
    ]);
    expect(p.environmentId).toBeUndefined();
  });

  it('Add with zero lines is an empty file', () => {
    const p = parsePatch(patch('*** Add File: empty.txt', '*** Add File: b.txt', '+b'));
    expect(p.hunks[0]).toEqual({ kind: 'add', path: 'empty.txt', contents: '', line: 2 });
    expect(p.hunks[1]).toMatchObject({ contents: 'b\n' });
  });

  it('Add lines are raw: nothing is trimmed', () => {
    const p = parsePatch(patch('*** Add File: a', '+  x  ', '+\t', '+*** End Patch'));
    expect(p.hunks[0]).toMatchObject({ contents: '  x  \n\t\n*** End Patch\n' });
  });

  it('an Update with Move to and no chunks is a pure rename', () => {
    const p = parsePatch(patch('*** Update File: a.txt', '*** Move to: b.txt', '*** Delete File: c'));
    expect(p.hunks[0]).toEqual({ kind: 'update', path: 'a.txt', moveTo: 'b.txt', chunks: [], line: 2 });
    expect(p.hunks[1]).toMatchObject({ kind: 'delete', line: 4 });
  });

  it('Move to accepts trailing whitespace but keeps spaces after the colon', () => {
    expect(update(parsePatch(patch('*** Update File: a', '*** Move to: b.txt \t ')).hunks[0]).moveTo).toBe('b.txt');
    expect(update(parsePatch(patch('*** Update File: a', '*** Move to:  b')).hunks[0]).moveTo).toBe(' b');
  });

  it('the first chunk may omit @@', () => {
    const u = update(parsePatch(patch('*** Update File: a', '-x', '+y')).hunks[0]);
    expect(u.chunks).toEqual([
      {
        contexts: [],
        lines: [
          { op: '-', text: 'x' },
          { op: '+', text: 'y' },
        ],
        oldLines: ['x'],
        newLines: ['y'],
        isEndOfFile: false,
        line: 3,
      },
    ]);
  });

  it('@@ text keeps the text verbatim; an empty line is an empty context line', () => {
    const u = update(parsePatch(patch('*** Update File: a', '@@ def f():  ', ' a', '', '  ', '-b', '+c', '@@', '-d')).hunks[0]);
    expect(u.chunks).toHaveLength(2);
    expect(u.chunks[0]).toMatchObject({
      contexts: ['def f():  '],
      oldLines: ['a', '', ' ', 'b'],
      newLines: ['a', '', ' ', 'c'],
      line: 3,
    });
    expect(u.chunks[1]).toMatchObject({ contexts: [], oldLines: ['d'], newLines: [], line: 9 });
  });

  it('@@ followed by whitespace only is a bare @@', () => {
    const u = update(parsePatch(patch('*** Update File: a', '@@   ', '-x')).hunks[0]);
    expect(u.chunks[0]!.contexts).toEqual([]);
  });

  it('a unified-diff header counts as a bare @@', () => {
    const u = update(parsePatch(patch('*** Update File: a', '@@ -1,3 +1,4 @@ def f():', '-x', '@@ -7 +8 @@', '-y')).hunks[0]);
    expect(u.chunks.map((c) => c.contexts)).toEqual([[], []]);
  });

  it('stacks consecutive @@ lines into contexts', () => {
    const u = update(
      parsePatch(
        patch(
          '*** Update File: w.py',
          '@@ class Writer:',
          '@@',
          '@@     def close(self):',
          '-        pass',
          '+        self.f.close()',
          '@@ class Reader:',
          ' x',
        ),
      ).hunks[0],
    );
    expect(u.chunks.map((c) => [c.contexts, c.line])).toEqual([
      [['class Writer:', '    def close(self):'], 3],
      [['class Reader:'], 8],
    ]);
  });

  it('*** End of File closes the chunk and pins it', () => {
    const u = update(parsePatch(patch('*** Update File: t', '@@', ' first', '-second', '+second updated', '*** End of File')).hunks[0]);
    expect(u.chunks[0]).toMatchObject({ isEndOfFile: true, oldLines: ['first', 'second'] });
    const v = update(parsePatch(patch('*** Update File: t', '-a', '*** End of File', '', '@@', '-b', '*** End of File')).hunks[0]);
    expect(v.chunks.map((c) => [c.isEndOfFile, c.line])).toEqual([
      [true, 3],
      [true, 6],
    ]);
  });

  it('lines that read like markers but start with a space are context lines', () => {
    const u = update(parsePatch(patch('*** Update File: doc.md', '@@', ' *** Add File: x', ' *** End Patch', ' *** End of File', '-@@ y')).hunks[0]);
    expect(u.chunks[0]!.oldLines).toEqual(['*** Add File: x', '*** End Patch', '*** End of File', '@@ y']);
  });

  it('blank lines between hunks and before the first chunk are skipped', () => {
    const p = parsePatch(patch('', '*** Delete File: a', '  ', '*** Update File: b', '', '\t', '-x', '*** Add File: c', '+c', '', '*** Delete File: d', ''));
    expect(p.hunks.map((h) => [h.kind, h.line])).toEqual([
      ['delete', 3],
      ['update', 5],
      ['add', 9],
      ['delete', 12],
    ]);
    expect(update(p.hunks[1]).chunks[0]!.line).toBe(8);
  });

  it('keeps trailing empty context lines of the last chunk (the applier may drop them)', () => {
    const u = update(parsePatch(patch('*** Update File: b', '-x', '')).hunks[0]);
    expect(u.chunks[0]!.oldLines).toEqual(['x', '']);
  });

  it('records Patch.text and the Environment ID', () => {
    const text = patch('*** Environment ID: env-1', '*** Delete File: a');
    const p = parsePatch(`\n\n${text}\n\n`);
    expect(p.text).toBe(text);
    expect(p.environmentId).toBe('env-1');
    expect(p.hunks[0]!.line).toBe(3);
  });

  it('Patch.text keeps the lines as accepted (no wrapper, no CR, no final newline)', () => {
    const p = parsePatch(['<<EOF', ' *** Begin Patch', '*** Delete File: a', '*** End Patch ', 'EOF', ''].join('\r\n'));
    expect(p.text).toBe(' *** Begin Patch\n*** Delete File: a\n*** End Patch ');
  });
});

describe('parsePatch: whitespace and line endings', () => {
  it('017: leading spaces before a hunk header', () => {
    const p = parsePatch(patch('  *** Update File: foo.txt', '@@', '-old', '+new'));
    expect(p.hunks[0]).toMatchObject({ kind: 'update', path: 'foo.txt', line: 2 });
  });

  it('018 / 020: padded Begin and End lines', () => {
    expect(parsePatch(' *** Begin Patch\n*** Delete File: f\n*** End Patch ').hunks).toHaveLength(1);
    expect(parsePatch('*** Begin Patch \n*** Delete File: f\n *** End Patch').hunks).toHaveLength(1);
  });

  it('headers are trimmed: trailing whitespace never reaches the path', () => {
    const p = parsePatch(patch('\t*** Add File: a.txt \u00a0', '+x', ' *** Delete File: b.txt\u0085'));
    expect(p.hunks.map((h) => h.path)).toEqual(['a.txt', 'b.txt']);
  });

  it('a BOM is not whitespace: a header starting with U+FEFF is invalid', () => {
    expectError(patch('\ufeff*** Delete File: a'), `Invalid patch hunk on line 2: '\ufeff*** Delete File: a' is not a valid hunk header. ${VALID_HEADERS}`, 2);
  });

  it('CRLF patches parse like LF ones', () => {
    const lf = patch('*** Update File: a', '@@ ctx', ' a', '-b', '+c', '', '*** Add File: n', '+x');
    const crlf = `${lf.split('\n').join('\r\n')}\r\n`;
    expect(parsePatch(crlf)).toEqual(parsePatch(lf));
  });

  it('only one \\r is dropped; a lone \\r stays inside the line', () => {
    const u = update(parsePatch(patch('*** Update File: a', '-x\r\r', '+y\rz')).hunks[0]);
    expect(u.chunks[0]!.oldLines).toEqual(['x\r']);
    expect(u.chunks[0]!.newLines).toEqual(['y\rz']);
  });
});

describe('parsePatch: wrappers', () => {
  it('heredoc, cd-heredoc and fences', () => {
    const inner = patch('*** Delete File: a');
    expect(parsePatch(`<<'EOF'\n${inner}\nEOF\n`).hunks).toHaveLength(1);
    expect(parsePatchInvocation(`cd sub && apply_patch <<'EOF'\n${inner}\nEOF`)).toMatchObject({ cwd: 'sub' });
    expect(parsePatchInvocation(`\`\`\`diff\n${inner}\n\`\`\``).cwd).toBeUndefined();
    expect(parsePatch(`\`\`\`\napply_patch <<EOF\n${inner}\nEOF\n\`\`\``).hunks).toHaveLength(1);
  });

  it('line numbers count from Begin, whatever wraps it', () => {
    const e = parseError(`\`\`\`\napply_patch <<EOF\n\n*** Begin Patch\n*** Frobnicate\n*** End Patch\nEOF\n\`\`\``);
    expect(e.data.line).toBe(2);
  });
});

describe('parsePatch: reference errors and line numbers', () => {
  it('first / last line', () => {
    expectError('', "Invalid patch: The last line of the patch must be '*** End Patch'", undefined);
    expectError('*** Begin Patch', "Invalid patch: The last line of the patch must be '*** End Patch'", 1);
    expectError('x\n*** End Patch', "Invalid patch: The first line of the patch must be '*** Begin Patch'", 1);
  });

  it('013: invalid hunk header, line 2', () => {
    expectError(patch('*** Frobnicate File: foo'), `Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. ${VALID_HEADERS}`, 2);
  });

  it('*** Move File: a -> b (not V4A) is refused with the V4A way to say it', () => {
    expectError(
      patch('*** Move File: src/old.ts -> src/new.ts'),
      `Invalid patch hunk on line 2: '*** Move File: src/old.ts -> src/new.ts' is not a valid hunk header. ${VALID_HEADERS} ` +
        "(V4A has no Move File: write '*** Update File: src/old.ts' and, on the next line, '*** Move to: src/new.ts')",
      2,
    );
    // without an arrow, the paths cannot be told apart: the form is still named
    expectError(
      patch('*** Move File: a'),
      `Invalid patch hunk on line 2: '*** Move File: a' is not a valid hunk header. ${VALID_HEADERS} ` +
        "(V4A has no Move File: write '*** Update File: OLD' and, on the next line, '*** Move to: NEW')",
      2,
    );
  });

  it('008: Update with neither chunks nor Move to, line of the header', () => {
    const e = expectError(patch('*** Update File: foo.txt'), "Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty", 2);
    expect(e.data.path).toBe('foo.txt');
    expectError(
      patch('*** Delete File: a', '*** Update File: b', '', '*** Delete File: c'),
      "Invalid patch hunk on line 3: Update file hunk for path 'b' is empty",
      3,
    );
  });

  it('the invalid header message is reported on the trimmed line', () => {
    expectError(patch('   garbage   '), `Invalid patch hunk on line 2: 'garbage' is not a valid hunk header. ${VALID_HEADERS}`, 2);
  });

  it('a non-+ line after an Add body is an invalid header, with a hint', () => {
    expectError(
      patch('*** Add File: a', '+x', 'y'),
      `Invalid patch hunk on line 4: 'y' is not a valid hunk header. ${VALID_HEADERS} (every line of an Add File body must start with '+')`,
      4,
    );
    expectError(
      patch('*** Add File: a', '+x', '', '+y'),
      `Invalid patch hunk on line 4: '' is not a valid hunk header. ${VALID_HEADERS} (an empty line of an Add File body is written '+')`,
      4,
    );
  });

  it('text after a Delete header is an invalid header', () => {
    expectError(
      patch('*** Delete File: a', '-x'),
      `Invalid patch hunk on line 3: '-x' is not a valid hunk header. ${VALID_HEADERS} (a Delete File hunk has no body)`,
      3,
    );
  });

  it('hints for case, missing path, misplaced markers', () => {
    expect(parseError(patch('*** update file: a')).message).toMatch(/\(markers are case-sensitive\)$/);
    expect(parseError(patch('*** Add File:')).message).toMatch(/'\*\*\* Add File:' is not a valid hunk header.*\(the path is missing\)$/);
    expect(parseError(patch('*** Delete File: a', '*** Move to: b')).message).toMatch(/must directly follow/);
    const e = parseError(patch('*** Delete File: a', '*** End Patch', '*** Begin Patch', '*** Delete File: b'));
    expect(e.message).toMatch(/^Invalid patch hunk on line 3: '\*\*\* End Patch' is not a valid hunk header\. .* may appear only once\)$/);
    expect(e.data.line).toBe(3);
  });

  it('"Update hunk does not contain any lines"', () => {
    expectError(patch('*** Update File: a', '@@'), 'Invalid patch hunk on line 4: Update hunk does not contain any lines', 4);
    expectError(patch('*** Update File: a', '@@', '*** End of File'), 'Invalid patch hunk on line 4: Update hunk does not contain any lines', 4);
    expectError(patch('*** Update File: a', '*** End of File'), 'Invalid patch hunk on line 3: Update hunk does not contain any lines', 3);
    expectError(patch('*** Update File: a', '@@ x', '@@ y'), 'Invalid patch hunk on line 5: Update hunk does not contain any lines', 5);
  });

  it('"Unexpected line found in update hunk"', () => {
    expectError(
      patch('*** Update File: a', '@@', '*** Add File: b'),
      `Invalid patch hunk on line 4: Unexpected line found in update hunk: '*** Add File: b'. ${EVERY_LINE}`,
      4,
    );
    expectError(
      patch('*** Update File: a', '@@', 'foo'),
      `Invalid patch hunk on line 4: Unexpected line found in update hunk: 'foo'. ${EVERY_LINE}${SPACE_HINT}`,
      4,
    );
    expectError(patch('*** Update File: a', 'foo'), `Invalid patch hunk on line 3: Unexpected line found in update hunk: 'foo'. ${EVERY_LINE}${SPACE_HINT}`, 3);
    expectError(
      patch('*** Update File: a', '@@', '\tindented'),
      `Invalid patch hunk on line 4: Unexpected line found in update hunk: '\tindented'. ${EVERY_LINE} (did you forget the leading space of a context line? This line starts with a tab)`,
      4,
    );
    expectError(
      patch('*** Update File: a', '@@', '*** Frobnicate'),
      `Invalid patch hunk on line 4: Unexpected line found in update hunk: '*** Frobnicate'. ${EVERY_LINE}`,
      4,
    );
  });

  it('"Expected update hunk to start with a @@ context marker"', () => {
    expectError(
      patch('*** Update File: a', '@@', '-x', 'y'),
      `Invalid patch hunk on line 5: Expected update hunk to start with a @@ context marker, got: 'y'${SPACE_HINT}`,
      5,
    );
    expectError(
      patch('*** Update File: a', '-x', '*** End of File', '-y'),
      "Invalid patch hunk on line 5: Expected update hunk to start with a @@ context marker, got: '-y' (every chunk after the first needs its own '@@' line)",
      5,
    );
    expectError(
      patch('*** Update File: a', '-x', '*** End of File', '*** End of File'),
      "Invalid patch hunk on line 5: Expected update hunk to start with a @@ context marker, got: '*** End of File'",
      5,
    );
    expectError(
      patch('*** Update File: a', '-x', '\\ No newline at end of file'),
      "Invalid patch hunk on line 4: Expected update hunk to start with a @@ context marker, got: '\\ No newline at end of file' (V4A has no '\\ No newline at end of file' marker; drop the line)",
      4,
    );
    expect(parseError(patch('*** Update File: a', '-x', '@@x')).message).toMatch(/got: '@@x' \(a chunk header is/);
    expect(parseError(patch('*** Update File: a', '-x', '*** Move to: b')).message).toMatch(
      /got: '\*\*\* Move to: b' \('\*\*\* Move to:' must directly follow/,
    );
  });

  it('hunk errors carry the path of the hunk', () => {
    expect(parseError(patch('*** Update File: dir/a.txt', '@@', 'foo')).data).toEqual({ line: 4, path: 'dir/a.txt' });
  });

  it('empty patch (005): no hunks, line of End', () => {
    const e = expectError(patch(), 'Invalid patch: No files were modified. The patch has no hunks.', 2);
    expect(e.message).toContain('No files were modified.');
    expectError(patch('', '  '), 'Invalid patch: No files were modified. The patch has no hunks.', 4);
  });

  it('Environment ID errors', () => {
    expectError(patch('*** Environment ID:', '*** Delete File: a'), 'Invalid patch hunk on line 2: apply_patch environment_id cannot be empty', 2);
    expectError(
      patch('*** Environment ID: a', '*** Environment ID: b', '*** Delete File: a'),
      'Invalid patch hunk on line 3: apply_patch environment_id cannot be specified more than once',
      3,
    );
    expect(parseError(patch('*** Delete File: a', '*** Environment ID: b')).message).toMatch(
      /'\*\*\* Environment ID: b' is not a valid hunk header.*may only come before the first hunk\)$/,
    );
    expectError(patch('*** Environment ID: x'), 'Invalid patch: No files were modified. The patch has no hunks.', 3);
  });
});

describe('parsePatch: paths', () => {
  it.each([['*** Add File: ../evil', '+x'], ['*** Delete File: /etc/passwd'], ['*** Update File: .git/config', '-x']])(
    'rejects %s with path_rejected on its line',
    (...body) => {
      const e = parseError(patch('*** Delete File: ok', ...body));
      expect(e.kind).toBe('path_rejected');
      expect(e.data.line).toBe(3);
      expect(e.message).toMatch(/^Invalid patch hunk on line 3: path '.*' is rejected: /);
    },
  );

  it('rejects a Move to destination on the Move line', () => {
    const e = parseError(patch('*** Update File: a', '*** Move to: sub/.GIT/hooks/x'));
    expect(e.kind).toBe('path_rejected');
    expect(e.data).toEqual({ path: 'sub/.GIT/hooks/x', line: 3 });
    expect(e.message).toBe("Invalid patch hunk on line 3: path 'sub/.GIT/hooks/x' is rejected: '.GIT' names the .git directory");
  });

  it("repeated '/' are one, as git apply takes them: .//x is x", () => {
    expect(parsePatch(patch('*** Delete File: .//x', '*** Delete File: a//b')).hunks.map((h) => h.path)).toEqual(['x', 'a/b']);
  });

  it("drops '.' segments, as a model writing ./src/x means src/x", () => {
    const p = parsePatch(patch('*** Add File: ./a.txt', '+x', '*** Delete File: src/./b', '*** Update File: ./c', '*** Move to: ./d/./e', '@@', '-x', '+y'));
    expect(p.hunks.map((h) => h.path)).toEqual(['a.txt', 'src/b', 'c']);
    expect(update(p.hunks[2]).moveTo).toBe('d/e');
  });

  it.each([
    ['*** Add File: .', /names a directory \(it ends with '\.'\)/],
    ['*** Delete File: ./../x', /'\.\.' segment/],
    ['*** Delete File: sub/x/.', /names a directory \(it ends with '\.'\)/],
    ['*** Delete File: sub/x/', /names a directory \(it ends with '\/'\)/],
  ])('still rejects %s', (header, reason) => {
    const e = parseError(patch(header));
    expect(e.kind).toBe('path_rejected');
    expect(e.message).toMatch(reason);
  });

  it('a space after the colon becomes part of the path', () => {
    expect(parsePatch(patch('*** Delete File:  a')).hunks[0]!.path).toBe(' a');
  });
});

if (!hasScenarios) {
  console.warn(`note: ${SCENARIOS_ABSENT}`);
  it.skip(SCENARIOS_ABSENT, () => undefined);
}

describe.skipIf(!hasScenarios)('the Codex scenarios parse as the reference does', () => {
  const dir = scenariosDir;
  const names = !hasScenarios
    ? []
    : readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
  const failing: Record<string, [string, number]> = {
    '005_rejects_empty_patch': ['Invalid patch: No files were modified. The patch has no hunks.', 2],
    '008_rejects_empty_update_hunk': ["Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty", 2],
    '013_rejects_invalid_hunk_header': [`Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. ${VALID_HEADERS}`, 2],
  };

  it('finds the scenarios', () => {
    expect(names.length).toBeGreaterThanOrEqual(25);
  });

  it.each(names)('%s', (name) => {
    const text = readFileSync(path.join(dir, name, 'patch.txt'), 'utf8');
    const expected = failing[name];
    if (expected === undefined) {
      const p = parsePatch(text);
      expect(p.hunks.length).toBeGreaterThan(0);
      expect(parsePatch(p.text)).toEqual(p);
    } else {
      expectError(text, expected[0], expected[1]);
    }
  });
});
