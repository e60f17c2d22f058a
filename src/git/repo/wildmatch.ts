// git's glob dialect ("wildmatch"), as used by .gitattributes patterns and includeIf conditions,
// compiled to a RegExp. In pathname mode `*`, `?` and bracket classes never match '/', and `**` is
// special only as a whole path component: a leading `**/` matches any (or no) leading directories,
// `/**/` matches one slash or any directories in between, and a trailing `/**` matches everything
// below. Elsewhere `**` is just `*`.

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};

const escapeChar = (c: string): string => (/[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c);

/** Compiles a bracket expression starting at pattern[start] === '['; null when it is not closed. */
function compileClass(pattern: string, start: number, pathname: boolean): { source: string; end: number } | null {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === ']' && !first) {
      if (negate) return { source: `[^${body}${pathname ? '\\/' : ''}]`, end: i + 1 };
      // a positive class that names '/' still cannot match it in pathname mode
      return { source: pathname ? `(?!\\/)[${body}]` : `[${body}]`, end: i + 1 };
    }
    first = false;
    if (c === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      const cls = close < 0 ? undefined : POSIX_CLASSES[pattern.slice(i + 2, close)];
      if (cls !== undefined) {
        body += cls;
        i = close + 2;
        continue;
      }
    }
    if (c === '\\' && i + 1 < pattern.length) {
      body += escapeChar(pattern[i + 1]!);
      i += 2;
      continue;
    }
    if (c === '-' && body !== '' && pattern[i + 1] !== ']' && i + 1 < pattern.length) {
      body += '-';
      i++;
      continue;
    }
    body += escapeChar(c);
    i++;
  }
  return null;
}

export function compileWildmatch(pattern: string, opts: { pathname?: boolean; ignoreCase?: boolean } = {}): RegExp {
  const pathname = opts.pathname ?? true;
  let source = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      source += escapeChar(pattern[i + 1] ?? '\\');
      i += 2;
    } else if (c === '?') {
      source += pathname ? '[^/]' : '.';
      i++;
    } else if (c === '*') {
      let stars = 0;
      while (pattern[i + stars] === '*') stars++;
      const atStart = i === 0 || pattern[i - 1] === '/';
      const next = pattern[i + stars];
      i += stars;
      if (!pathname) source += '.*';
      else if (stars >= 2 && atStart && next === '/') {
        source += '(?:.*/)?';
        i++; // the slash is part of the component
      } else if (stars >= 2 && atStart && next === undefined) source += '.*';
      else source += '[^/]*';
    } else if (c === '[') {
      const cls = compileClass(pattern, i, pathname);
      if (cls) {
        source += cls.source;
        i = cls.end;
      } else {
        source += '\\[';
        i++;
      }
    } else {
      source += escapeChar(c);
      i++;
    }
  }
  return new RegExp(`^${source}$`, opts.ignoreCase ? 'is' : 's');
}

export function wildmatch(pattern: string, text: string, opts: { pathname?: boolean; ignoreCase?: boolean } = {}): boolean {
  return compileWildmatch(pattern, opts).test(text);
}
