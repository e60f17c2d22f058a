import { describe, expect, it } from 'vitest';
import { PatchtxError } from '../../src/errors.js';
import { readEnvelope } from '../../src/patch/envelope.js';

const BODY = ['*** Begin Patch', '*** Delete File: a.txt', '*** End Patch'];
const join = (...lines: string[]) => lines.join('\n');

function envelopeError(text: string): PatchtxError {
  try {
    readEnvelope(text);
  } catch (e) {
    expect(e).toBeInstanceOf(PatchtxError);
    expect((e as PatchtxError).kind).toBe('parse_error');
    return e as PatchtxError;
  }
  throw new Error('no error');
}

const FIRST = "Invalid patch: The first line of the patch must be '*** Begin Patch'";
const LAST = "Invalid patch: The last line of the patch must be '*** End Patch'";

describe('readEnvelope: the reference behaviour', () => {
  it('accepts Begin ... End and returns the lines', () => {
    expect(readEnvelope(join(...BODY))).toEqual({ lines: BODY });
    expect(readEnvelope(`${join(...BODY)}\n`)).toEqual({ lines: BODY });
  });

  it('trims the whole text with the Rust whitespace set', () => {
    expect(readEnvelope(`\n\n  \u0085\u3000${join(...BODY)}\n \u2028\n`).lines).toEqual(BODY);
  });

  it('does not trim U+FEFF (a BOM is not Rust whitespace) except as the first character of the text', () => {
    expect(envelopeError(`${join(...BODY)}\ufeff`).message).toBe(LAST);
    const e = envelopeError(`\n\ufeff${join(...BODY)}`);
    expect(e.message).toBe(FIRST);
    expect(e.data.line).toBe(1);
  });

  it('accepts a UTF-8 BOM before *** Begin Patch, as other envelope noise', () => {
    expect(readEnvelope(`\ufeff${join(...BODY)}\n`)).toEqual({ lines: BODY });
    expect(readEnvelope(`\ufeff  \n${join(...BODY)}`)).toEqual({ lines: BODY });
    expect(readEnvelope(`\ufeff\`\`\`diff\n${join(...BODY)}\n\`\`\``)).toEqual({ lines: BODY });
  });

  it('splits CRLF and drops one \\r per line', () => {
    expect(readEnvelope(BODY.join('\r\n') + '\r\n').lines).toEqual(BODY);
    expect(readEnvelope(join('*** Begin Patch', '*** Delete File: a\r\r', '*** End Patch')).lines[1]).toBe('*** Delete File: a\r');
  });

  it('checks the first and last lines trimmed (018, 020)', () => {
    expect(readEnvelope(join(' *** Begin Patch', BODY[1]!, '*** End Patch ')).lines).toHaveLength(3);
    expect(readEnvelope(join('*** Begin Patch \t', BODY[1]!, '   *** End Patch')).lines).toHaveLength(3);
  });

  it('empty input reports the "last line" message', () => {
    for (const text of ['', '   ', '\n\n', '\u0085']) {
      const e = envelopeError(text);
      expect(e.message).toBe(LAST);
      expect(e.data.line).toBeUndefined();
    }
  });

  it('a lone Begin line reports the "last line" message', () => {
    const e = envelopeError('*** Begin Patch');
    expect(e.message).toBe(LAST);
    expect(e.data.line).toBe(1);
  });

  it('first line wrong: reference message, line 1', () => {
    const e = envelopeError(join('*** Begin patch', BODY[1]!, '*** End Patch'));
    expect(e.message).toBe(FIRST);
    expect(e.data.line).toBe(1);
  });

  it('last line wrong: reference message, the last line', () => {
    const e = envelopeError(join('*** Begin Patch', BODY[1]!, '*** End'));
    expect(e.message).toBe(LAST);
    expect(e.data.line).toBe(3);
  });

  it('markers are case-sensitive', () => {
    expect(envelopeError(join('*** BEGIN PATCH', '*** End Patch')).message).toBe(FIRST);
  });
});

describe('readEnvelope: stray text', () => {
  it('names the line of text before Begin', () => {
    const e = envelopeError(join('Here is the patch:', '', ...BODY));
    expect(e.message).toBe(`${FIRST}; found text before it on line 1: 'Here is the patch:'`);
    expect(e.data.line).toBe(1);
  });

  it('names the line of text after End', () => {
    const e = envelopeError(join(...BODY, '', 'Hope this helps!', 'Bye'));
    expect(e.message).toBe(`${LAST}; found text after it on line 4: ''`);
    expect(e.data.line).toBe(4);
    const f = envelopeError(join(...BODY, 'Hope this helps!'));
    expect(f.message).toBe(`${LAST}; found text after it on line 4: 'Hope this helps!'`);
  });

  it('clips a long stray line', () => {
    const e = envelopeError(join('x'.repeat(500), ...BODY));
    expect(e.message.length).toBeLessThan(250);
    expect(e.message).toMatch(/x\.\.\.'$/);
  });
});

describe('readEnvelope: heredoc wrappers', () => {
  it.each(['<<EOF', "<<'EOF'", '<<"EOF"'])('accepts the reference form %s', (open) => {
    expect(readEnvelope(join(open, ...BODY, 'EOF'))).toEqual({ lines: BODY });
  });

  it('the reference only asks the last line to end with the delimiter', () => {
    expect(readEnvelope(join('<<EOF', ...BODY, '  EOF')).lines).toEqual(BODY);
    expect(readEnvelope(join('<<EOF', ...BODY, 'xEOF')).lines).toEqual(BODY);
  });

  it('mismatched quotes are not a heredoc: the "first line" error', () => {
    const e = envelopeError(join('<<"EOF\'', ...BODY, 'EOF'));
    expect(e.message).toMatch(/^Invalid patch: The first line of the patch must be '\*\*\* Begin Patch'/);
    expect(e.data.line).toBe(1);
  });

  it('a heredoc without End reports the inner "last line" error', () => {
    const e = envelopeError(join('<<EOF', '*** Begin Patch', '*** Delete File: a', 'EOF'));
    expect(e.message).toBe(LAST);
    expect(e.data.line).toBe(3);
  });

  it('a heredoc around a single line keeps the outer error (the reference wants 4 lines)', () => {
    expect(envelopeError(join('<<EOF', '*** Begin Patch', 'EOF')).message).toBe(`${FIRST}; found text before it on line 1: '<<EOF'`);
  });

  it.each([
    ["apply_patch <<'EOF'", 'EOF', undefined],
    ['apply_patch <<EOF', 'EOF', undefined],
    ['apply_patch <<"PATCH"', 'PATCH', undefined],
    ["applypatch << 'EOF'", 'EOF', undefined],
    ["cd src && apply_patch <<'EOF'", 'EOF', 'src'],
    ["cd /abs/dir&&apply_patch <<'EOF'", 'EOF', '/abs/dir'],
    ["cd 'my dir' && apply_patch <<'EOF'", 'EOF', 'my dir'],
    ['cd "a \\"q\\" dir" && apply_patch <<EOF', 'EOF', 'a "q" dir'],
    ["cd my\\ dir && apply_patch <<'EOF'", 'EOF', 'my dir'],
  ])('accepts the invocation %s and records cd', (open, close, cwd) => {
    const env = readEnvelope(join(open, ...BODY, close));
    expect(env.lines).toEqual(BODY);
    expect(env.cwd).toBe(cwd);
  });

  it('the invocation form needs the delimiter alone on the last line', () => {
    expect(() => readEnvelope(join("apply_patch <<'EOF'", ...BODY, 'xEOF'))).toThrow(FIRST);
    expect(() => readEnvelope(join("apply_patch <<'EOF'", ...BODY, 'END'))).toThrow(FIRST);
  });

  it('other shell commands are not wrappers', () => {
    expect(() => readEnvelope(join("cat <<'EOF'", ...BODY, 'EOF'))).toThrow(FIRST);
    expect(() => readEnvelope(join("cd a; apply_patch <<'EOF'", ...BODY, 'EOF'))).toThrow(FIRST);
    expect(() => readEnvelope(join("cd a && rm -rf b && apply_patch <<'EOF'", ...BODY, 'EOF'))).toThrow(FIRST);
  });
});

describe('readEnvelope: Markdown fences', () => {
  it.each(['```', '```diff', '```patch', '``` text', '````', '~~~'])('accepts a %s fence', (open) => {
    const close = open.startsWith('~') ? '~~~' : open.startsWith('````') ? '````' : '```';
    expect(readEnvelope(join(open, ...BODY, close))).toEqual({ lines: BODY });
  });

  it('drops blank lines just inside the fence, and pads around it', () => {
    expect(readEnvelope(join('  ```diff  ', '', ...BODY, '', '   ', '```  ')).lines).toEqual(BODY);
  });

  it('a closing fence shorter than the opening one does not close it', () => {
    expect(() => readEnvelope(join('````', ...BODY, '```'))).toThrow(/first line/);
  });

  it('fence around a heredoc invocation, and heredoc around a fence', () => {
    const a = readEnvelope(join('```bash', "cd pkg && apply_patch <<'EOF'", ...BODY, 'EOF', '```'));
    expect(a).toEqual({ lines: BODY, cwd: 'pkg' });
    const b = readEnvelope(join('<<EOF', '```', ...BODY, '```', 'EOF'));
    expect(b).toEqual({ lines: BODY });
  });

  it('text after End inside a fence is reported with its line in the input', () => {
    const e = envelopeError(join('```', ...BODY, 'trailing words', '```'));
    expect(e.message).toBe(`${LAST}; found text after it on line 5: 'trailing words'`);
    expect(e.data.line).toBe(5);
  });

  it('text outside the fence is an error', () => {
    const e = envelopeError(join('Sure:', '```', ...BODY, '```'));
    expect(e.message).toBe(`${FIRST}; found text before it on line 1: 'Sure:'`);
    const f = envelopeError(join('```', ...BODY, '```', 'Done.'));
    expect(f.message).toMatch(/^Invalid patch: The first line/);
  });

  it('an unclosed fence is an error', () => {
    expect(() => readEnvelope(join('```', ...BODY))).toThrow(/found text before it on line 1: '```'/);
  });
});
