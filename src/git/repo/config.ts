// git configuration: the file syntax, and the layered set of files a repository sees.
//
// Syntax handled: `[section]`, `[section "subsection"]` (subsection case-sensitive, `\"` and `\\`
// escapes), the deprecated `[section.subsection]` (subsection lower-cased), `key = value` with
// double-quoted parts and the escapes \n \t \b \\ \", backslash-newline continuations, `#`/`;`
// comments, a key without `=` (boolean true), case-insensitive section and key names, repeated keys
// (multi-valued; a single-valued read takes the last), `[include] path` and `[includeIf "gitdir:…"]`,
// `"gitdir/i:…"`, `"onbranch:…"`.
//
// Layers, lowest precedence first: system (/etc/gitconfig or $GIT_CONFIG_SYSTEM, skipped with
// $GIT_CONFIG_NOSYSTEM), global ($GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config then
// ~/.gitconfig), the repository's config, its config.worktree when extensions.worktreeConfig is on,
// then $GIT_CONFIG_COUNT/$GIT_CONFIG_KEY_n/$GIT_CONFIG_VALUE_n, then $GIT_CONFIG_PARAMETERS (what
// `git -c` passes on to aliases and hooks).
import { readFile, realpath } from '../fs/fsx.js';
import { homedir } from 'node:os';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import type { Repository } from './repository.js';
import { wildmatch } from './wildmatch.js';

export { resolveIdentity, type IdentityRole } from './identity.js';

export interface ConfigEntry {
  /** lower-cased */
  section: string;
  /** as written (lower-cased for the old `[section.sub]` form), or null */
  subsection: string | null;
  /** lower-cased */
  name: string;
  /** null for a key written without `=` */
  value: string | null;
  /** the file the entry came from (for messages) */
  file: string;
}

function badLine(file: string, line: number): PatchtxError {
  return new PatchtxError('usage', `bad config line ${line} in file ${file}`, { file, line });
}

/** Parses one config file's text into entries, in order. Include directives are plain entries here. */
export function parseConfig(text: string, file = '(config)'): ConfigEntry[] {
  const src = text.replace(/\r\n/g, '\n');
  const entries: ConfigEntry[] = [];
  let i = src.startsWith('\uFEFF') ? 1 : 0;
  let line = 1;
  let section: string | null = null;
  let subsection: string | null = null;

  const skipToEol = (): void => {
    while (i < src.length && src[i] !== '\n') i++;
  };

  const parseHeader = (): void => {
    i++; // '['
    const start = i;
    while (i < src.length && /[A-Za-z0-9.-]/.test(src[i]!)) i++;
    const name = src.slice(start, i);
    if (name === '') throw badLine(file, line);
    if (src[i] === ']') {
      i++;
      const dot = name.indexOf('.');
      section = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
      subsection = dot < 0 ? null : name.slice(dot + 1).toLowerCase();
      return;
    }
    while (src[i] === ' ' || src[i] === '\t') i++;
    if (src[i] !== '"' || name.includes('.')) throw badLine(file, line);
    i++;
    let sub = '';
    for (;;) {
      const c = src[i++];
      if (c === undefined || c === '\n') throw badLine(file, line);
      if (c === '"') break;
      if (c === '\\') {
        const escaped = src[i++];
        if (escaped === undefined || escaped === '\n') throw badLine(file, line);
        sub += escaped;
      } else sub += c;
    }
    if (src[i] !== ']') throw badLine(file, line);
    i++;
    section = name.toLowerCase();
    subsection = sub;
  };

  // the value after '=': quotes toggle, unquoted whitespace runs collapse to single spaces and are
  // dropped at both ends, an unquoted # or ; starts a comment
  const parseValue = (): string => {
    let value = '';
    let pendingSpaces = 0;
    let quoted = false;
    let inComment = false;
    while (i < src.length) {
      const c = src[i++]!;
      if (c === '\n') {
        if (quoted) throw badLine(file, line);
        line++;
        return value;
      }
      if (inComment) continue;
      if (!quoted && (c === ' ' || c === '\t')) {
        if (value !== '') pendingSpaces++;
        continue;
      }
      if (!quoted && (c === '#' || c === ';')) {
        inComment = true;
        continue;
      }
      value += ' '.repeat(pendingSpaces);
      pendingSpaces = 0;
      if (c === '\\') {
        const escaped = src[i++];
        if (escaped === '\n') {
          line++;
          continue;
        }
        const meaning: Record<string, string> = { n: '\n', t: '\t', b: '\b', '\\': '\\', '"': '"' };
        if (escaped === undefined || meaning[escaped] === undefined) throw badLine(file, line);
        value += meaning[escaped];
      } else if (c === '"') quoted = !quoted;
      else value += c;
    }
    if (quoted) throw badLine(file, line);
    return value;
  };

  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t') i++;
    else if (c === '#' || c === ';') skipToEol();
    else if (c === '[') parseHeader();
    else if (/[A-Za-z]/.test(c)) {
      if (section === null) throw badLine(file, line);
      const start = i;
      while (i < src.length && /[A-Za-z0-9-]/.test(src[i]!)) i++;
      const name = src.slice(start, i).toLowerCase();
      while (src[i] === ' ' || src[i] === '\t') i++;
      let value: string | null = null;
      if (src[i] === '=') {
        i++;
        value = parseValue();
      } else if (i < src.length && src[i] !== '\n' && src[i] !== '#' && src[i] !== ';') {
        throw badLine(file, line);
      }
      entries.push({ section, subsection, name, value, file });
    } else throw badLine(file, line);
  }
  return entries;
}

/** Splits `section[.subsection].name` into its canonical parts (null for a malformed key). */
function splitKey(key: string): { section: string; subsection: string | null; name: string } | null {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return null;
  return {
    section: key.slice(0, first).toLowerCase(),
    subsection: first === last ? null : key.slice(first + 1, last),
    name: key.slice(last + 1).toLowerCase(),
  };
}

const canonical = (section: string, subsection: string | null, name: string): string =>
  subsection === null ? `${section}.${name}` : `${section}.${subsection}.${name}`;

export function parseBool(value: string | null, key = '(value)'): boolean {
  if (value === null) return true;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === 'no' || v === 'off' || v === '') return false;
  if (/^-?\d+$/.test(v)) return Number(v) !== 0;
  throw new PatchtxError('usage', `bad boolean config value '${value}' for '${key}'`, { key, value });
}

/** The multipliers of git's integer units (git_parse_signed): none, k, m, g, either case. */
const UNIT_FACTORS = new Map([
  ['', 1],
  ['k', 1024],
  ['m', 1024 ** 2],
  ['g', 1024 ** 3],
]);

/**
 * An integer config value read as git reads one (git_config_int): leading blanks, a sign, a `0x`
 * (hexadecimal) or `0` (octal) prefix as C's strtoimax takes them, then an optional unit k, m or g
 * (1024 and its powers); the result's magnitude must fit a C int, as git checks it. Anything else is refused with git's own
 * message (kind usage, as for a bad boolean). `value` null is a key written without `=`.
 */
export function parseInt32(value: string | null, key: string): number {
  const v = value ?? '';
  const bad = (why: string): PatchtxError => new PatchtxError('usage', `bad numeric config value '${v}' for '${key.toLowerCase()}': ${why}`, { key, value: v });
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)?(.*)$/s.exec(v)!;
  const [, sign, digits, rest] = m;
  const unit = UNIT_FACTORS.get(rest!.toLowerCase());
  // no digits at all (C's strtoimax ended where it started) is refused the same way
  if (digits === undefined || unit === undefined) throw bad('invalid unit');
  const n = /^0[xX]/.test(digits)
    ? Number.parseInt(digits.slice(2), 16)
    : digits.length > 1 && digits.startsWith('0')
      ? Number.parseInt(digits, 8)
      : Number(digits);
  const result = (sign === '-' ? -n : n) * unit;
  if (!Number.isSafeInteger(result) || Math.abs(result) > 2 ** 31 - 1) throw bad('out of range');
  return result;
}

export class GitConfig {
  readonly entries: readonly ConfigEntry[];
  private readonly byKey = new Map<string, (string | null)[]>();

  constructor(entries: readonly ConfigEntry[] = []) {
    this.entries = entries;
    for (const e of entries) {
      const key = canonical(e.section, e.subsection, e.name);
      let values = this.byKey.get(key);
      if (!values) this.byKey.set(key, (values = []));
      values.push(e.value);
    }
  }

  static fromText(text: string, file?: string): GitConfig {
    return new GitConfig(parseConfig(text, file));
  }

  private values(key: string): (string | null)[] {
    const parts = splitKey(key);
    return parts ? (this.byKey.get(canonical(parts.section, parts.subsection, parts.name)) ?? []) : [];
  }

  /** The last value, null for a key written without `=`, undefined when unset. */
  getRaw(key: string): string | null | undefined {
    const values = this.values(key);
    return values.length === 0 ? undefined : values[values.length - 1];
  }

  /** The last value; a key written without `=` reads as 'true'. */
  get(key: string): string | undefined {
    const v = this.getRaw(key);
    return v === null ? 'true' : v;
  }

  /** Every value of `key` in order, null for one written without `=`. */
  getAllRaw(key: string): (string | null)[] {
    return this.values(key);
  }

  getAll(key: string): string[] {
    return this.values(key).map((v) => v ?? 'true');
  }

  getBool(key: string): boolean | undefined {
    const v = this.getRaw(key);
    return v === undefined ? undefined : parseBool(v, key);
  }

  has(key: string): boolean {
    return this.values(key).length > 0;
  }
}

const isTruthyEnv = (v: string | undefined): boolean => v !== undefined && v !== '' && parseBoolSafe(v);

function parseBoolSafe(v: string): boolean {
  try {
    return parseBool(v);
  } catch {
    return false;
  }
}

interface IncludeContext {
  home: string;
  /** lazily computed: the repository's git dir (real path) and current branch, for includeIf */
  gitdir: () => Promise<string | null>;
  branch: () => Promise<string | null>;
  /** told of every file just before it is read (see loadConfig) */
  onRead?: (file: string) => void;
}

/** `~` and `~/...` at the start of a path setting are the home directory, as git reads its
 * pathname settings (git's `~user/` form is taken as written). */
export function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

async function includeIfHolds(condition: string, file: string, ctx: IncludeContext): Promise<boolean> {
  const m = /^(gitdir|gitdir\/i|onbranch):(.*)$/s.exec(condition);
  if (!m) return false; // hasconfig: and conditions from newer gits: not met, as older gits treat them
  let pattern = m[2]!;
  if (m[1] === 'onbranch') {
    const branch = await ctx.branch();
    if (branch === null) return false;
    if (pattern.endsWith('/')) pattern += '**';
    return wildmatch(pattern, branch, { pathname: true });
  }
  const gitdir = await ctx.gitdir();
  if (gitdir === null) return false;
  pattern = expandHome(pattern, ctx.home);
  if (pattern.startsWith('./')) pattern = path.join(path.dirname(file), pattern.slice(2));
  else if (!path.isAbsolute(pattern)) pattern = `**/${pattern}`;
  if (pattern.endsWith('/')) pattern += '**';
  const ignoreCase = m[1] === 'gitdir/i';
  return wildmatch(pattern, gitdir, { pathname: true, ignoreCase }) || wildmatch(pattern, `${gitdir}/`, { pathname: true, ignoreCase });
}

/** Reads a config file with its includes expanded in place; a missing file yields nothing. */
async function readConfigFile(file: string, ctx: IncludeContext, depth = 0): Promise<ConfigEntry[]> {
  if (depth > 10) throw new PatchtxError('usage', `config include nesting too deep at ${file}`, { file });
  ctx.onRead?.(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new PatchtxError('usage', `cannot read config file ${file}: ${(e as Error).message}`, { file });
  }
  const out: ConfigEntry[] = [];
  for (const entry of parseConfig(text, file)) {
    out.push(entry);
    if (entry.name !== 'path' || entry.value === null) continue;
    const conditional = entry.section === 'includeif' && entry.subsection !== null;
    if (!(entry.section === 'include' && entry.subsection === null) && !conditional) continue;
    if (conditional && !(await includeIfHolds(entry.subsection!, file, ctx))) continue;
    let target = expandHome(entry.value, ctx.home);
    if (!path.isAbsolute(target)) target = path.join(path.dirname(file), target);
    out.push(...(await readConfigFile(target, ctx, depth + 1)));
  }
  return out;
}

function envEntry(key: string, value: string | null, from: string): ConfigEntry {
  const parts = splitKey(key.trim());
  if (!parts) throw new PatchtxError('usage', `bad config key '${key}' in ${from}`, { key, variable: from });
  return { ...parts, value, file: '(command line)' };
}

/** git's single-quoted word: `'…'` with `\'` and `\!` allowed between quoted parts. */
function dequoteStep(text: string, at: number): { word: string; next: number } | null {
  if (text[at] !== "'") return null;
  let word = '';
  let i = at + 1;
  for (;;) {
    const close = text.indexOf("'", i);
    if (close < 0) return null;
    word += text.slice(i, close);
    i = close + 1;
    if (text[i] === '\\' && (text[i + 1] === "'" || text[i + 1] === '!') && text[i + 2] === "'") {
      word += text[i + 1];
      i += 3;
      continue;
    }
    return { word, next: i };
  }
}

/**
 * $GIT_CONFIG_PARAMETERS, which `git -c key=value` sets for the commands it runs (aliases, hooks):
 * single-quoted words separated by spaces, each `'key'='value'` (`'key'=` for a bare boolean), or
 * in the older form `'key=value'` (`'key'` alone for a bare boolean).
 */
export function parseConfigParameters(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  const bogus = (): PatchtxError =>
    new PatchtxError('usage', `bogus format in GIT_CONFIG_PARAMETERS: ${JSON.stringify(text)}`, { variable: 'GIT_CONFIG_PARAMETERS' });
  const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
  let i = 0;
  while (isSpace(text[i])) i++;
  while (i < text.length) {
    const key = dequoteStep(text, i);
    if (!key) throw bogus();
    i = key.next;
    if (i >= text.length || isSpace(text[i])) {
      // the older form: everything up to the first '=' is the key
      const eq = key.word.indexOf('=');
      out.push(eq < 0 ? envEntry(key.word, null, 'GIT_CONFIG_PARAMETERS') : envEntry(key.word.slice(0, eq), key.word.slice(eq + 1), 'GIT_CONFIG_PARAMETERS'));
    } else if (text[i] === '=') {
      i++;
      if (text[i] === "'") {
        const value = dequoteStep(text, i);
        if (!value || (value.next < text.length && !isSpace(text[value.next]))) throw bogus();
        out.push(envEntry(key.word, value.word, 'GIT_CONFIG_PARAMETERS'));
        i = value.next;
      } else if (i >= text.length || isSpace(text[i])) {
        out.push(envEntry(key.word, null, 'GIT_CONFIG_PARAMETERS'));
      } else throw bogus();
    } else throw bogus();
    while (isSpace(text[i])) i++;
  }
  return out;
}

/**
 * Configuration given in the environment, above every file: $GIT_CONFIG_COUNT with
 * $GIT_CONFIG_KEY_n/$GIT_CONFIG_VALUE_n, then $GIT_CONFIG_PARAMETERS (`git -c`), as git reads them.
 */
function envEntries(env: NodeJS.ProcessEnv): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  if (env.GIT_CONFIG_COUNT !== undefined && env.GIT_CONFIG_COUNT !== '') {
    const count = Number(env.GIT_CONFIG_COUNT);
    if (!Number.isInteger(count) || count < 0) {
      throw new PatchtxError('usage', `bogus count in GIT_CONFIG_COUNT: ${env.GIT_CONFIG_COUNT}`, { variable: 'GIT_CONFIG_COUNT' });
    }
    for (let n = 0; n < count; n++) {
      const key = env[`GIT_CONFIG_KEY_${n}`];
      const value = env[`GIT_CONFIG_VALUE_${n}`];
      if (key === undefined) throw new PatchtxError('usage', `missing config key GIT_CONFIG_KEY_${n}`, { variable: `GIT_CONFIG_KEY_${n}` });
      if (value === undefined) throw new PatchtxError('usage', `missing config value GIT_CONFIG_VALUE_${n}`, { variable: `GIT_CONFIG_VALUE_${n}` });
      out.push(envEntry(key, value, `GIT_CONFIG_KEY_${n}`));
    }
  }
  if (env.GIT_CONFIG_PARAMETERS) out.push(...parseConfigParameters(env.GIT_CONFIG_PARAMETERS));
  return out;
}

/**
 * All configuration a repository sees, merged with git's precedence. `onRead` is told of every
 * file the result depends on (present or not: config files, included files, HEAD for an
 * `onbranch:` condition) just before it is read, so that a caller keeping the result can tell
 * when it is out of date (the environment aside).
 */
export async function loadConfig(repo: Repository, env: NodeJS.ProcessEnv = process.env, onRead?: (file: string) => void): Promise<GitConfig> {
  const home = env.HOME || homedir();
  const ctx: IncludeContext = {
    home,
    onRead,
    gitdir: async () => realpath(repo.gitdir).catch(() => null),
    branch: async () => {
      onRead?.(path.join(repo.gitdir, 'HEAD'));
      const head = await readFile(path.join(repo.gitdir, 'HEAD'), 'utf8').catch(() => '');
      const m = /^ref: refs\/heads\/(.+?)\s*$/.exec(head);
      return m ? m[1]! : null;
    },
  };

  const files: string[] = [];
  if (!isTruthyEnv(env.GIT_CONFIG_NOSYSTEM)) files.push(env.GIT_CONFIG_SYSTEM || '/etc/gitconfig');
  if (env.GIT_CONFIG_GLOBAL !== undefined) {
    if (env.GIT_CONFIG_GLOBAL !== '') files.push(env.GIT_CONFIG_GLOBAL);
  } else {
    files.push(path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git', 'config'));
    files.push(path.join(home, '.gitconfig'));
  }
  files.push(path.join(repo.commonDir, 'config'));

  const entries: ConfigEntry[] = [];
  for (const file of files) entries.push(...(await readConfigFile(file, ctx)));
  if (new GitConfig(entries).getBool('extensions.worktreeConfig')) {
    entries.push(...(await readConfigFile(path.join(repo.gitdir, 'config.worktree'), ctx)));
  }
  entries.push(...envEntries(env));
  return new GitConfig(entries);
}
