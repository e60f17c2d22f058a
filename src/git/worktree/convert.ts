// What git's content conversion does between the working tree and the object store, for the
// conversions that are pure functions of the bytes: line endings (the `text`, `eol` and old `crlf`
// attributes, core.autocrlf, core.eol, core.safecrlf) and `ident` ($Id$). `git add` runs toGit on
// the file it stores, `git checkout` runs toWorktree on the blob it writes, with the decisions git
// makes: text=auto and core.autocrlf look at the content (a file with a NUL, a lone CR or too many
// control characters is left alone), leave a file that already has CRLF in the index alone, and
// add CRs on checkout only to a file that has none. patchtx runs on POSIX systems, where git's
// native line ending (core.eol=native, or unset) is LF.
import { parseBool } from '../repo/config.js';
import type { GitConfig } from '../repo/config.js';
import type { AttributeValue } from '../repo/attributes.js';
import { hashBlob } from '../objects/hash.js';

export interface Conversion {
  /** line endings: never converted, always (text), or when the content looks like text (auto) */
  crlf: 'binary' | 'text' | 'auto';
  /** the line ending text gets in the working tree */
  eol: 'lf' | 'crlf';
  /** `$Id$` expanded to the blob's id on checkout, collapsed on add */
  ident: boolean;
  /** core.safecrlf: what `git add` does when checkout would not give the file back as it was */
  safecrlf: 'die' | 'warn' | 'off';
}

/** The settings that decide conversions for every path. */
export interface ConversionConfig {
  autocrlf: 'true' | 'false' | 'input';
  /** core.eol; native (and unset) is lf here */
  eol: 'lf' | 'crlf';
  safecrlf: Conversion['safecrlf'];
}

export function conversionConfig(config: GitConfig): ConversionConfig {
  const autocrlfRaw = config.getRaw('core.autocrlf');
  const autocrlf =
    autocrlfRaw === undefined ? 'false' : autocrlfRaw?.toLowerCase() === 'input' ? 'input' : parseBool(autocrlfRaw, 'core.autocrlf') ? 'true' : 'false';
  const eol = config.get('core.eol')?.toLowerCase() === 'crlf' ? 'crlf' : 'lf';
  const safeRaw = config.getRaw('core.safecrlf');
  const safecrlf = safeRaw === undefined || safeRaw?.toLowerCase() === 'warn' ? 'warn' : parseBool(safeRaw, 'core.safecrlf') ? 'die' : 'off';
  return { autocrlf, eol, safecrlf };
}

type CrlfAttr = 'text' | 'binary' | 'input' | 'auto' | undefined;

/** The `text` (or old `crlf`) attribute as git reads it; other values count as unspecified. */
function crlfAttr(value: AttributeValue | undefined): CrlfAttr {
  if (value === true) return 'text';
  if (value === false) return 'binary';
  if (value === 'input' || value === 'auto') return value;
  return undefined;
}

/**
 * The conversion for a path with these attributes (`text`, `crlf`, `eol`, `ident`; absent ones
 * unspecified) under `config`, decided as git's convert_attrs does.
 */
export function conversionFor(attrs: ReadonlyMap<string, AttributeValue>, config: ConversionConfig): Conversion {
  let attr = crlfAttr(attrs.get('text'));
  if (attr === undefined) attr = crlfAttr(attrs.get('crlf'));
  const eolAttr = attrs.get('eol');
  const textEol = config.autocrlf === 'true' ? 'crlf' : config.autocrlf === 'input' ? 'lf' : config.eol;
  const ident = attrs.get('ident') === true;
  const safecrlf = config.safecrlf;
  if (attr === 'binary') return { crlf: 'binary', eol: 'lf', ident, safecrlf };
  // an eol attribute makes the path text (auto stays auto) with that line ending
  if (eolAttr === 'lf' || eolAttr === 'crlf') return { crlf: attr === 'auto' ? 'auto' : 'text', eol: eolAttr, ident, safecrlf };
  if (attr === 'text') return { crlf: 'text', eol: textEol, ident, safecrlf };
  if (attr === 'input') return { crlf: 'text', eol: 'lf', ident, safecrlf };
  if (attr === 'auto') return { crlf: 'auto', eol: textEol, ident, safecrlf };
  // unspecified: core.autocrlf decides
  if (config.autocrlf === 'false') return { crlf: 'binary', eol: 'lf', ident, safecrlf };
  return { crlf: 'auto', eol: config.autocrlf === 'true' ? 'crlf' : 'lf', ident, safecrlf };
}

/** Whether the conversion can change any content (otherwise both directions are the identity). */
export function converts(c: Conversion): boolean {
  return c.crlf !== 'binary' || c.ident;
}

interface TextStats {
  lonecr: number;
  lonelf: number;
  crlf: number;
  nul: number;
  printable: number;
  nonprintable: number;
}

function gatherStats(buf: Uint8Array): TextStats {
  const s: TextStats = { lonecr: 0, lonelf: 0, crlf: 0, nul: 0, printable: 0, nonprintable: 0 };
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 0x0d) {
      if (buf[i + 1] === 0x0a) {
        s.crlf++;
        i++;
      } else s.lonecr++;
    } else if (c === 0x0a) s.lonelf++;
    else if (c === 0x7f) s.nonprintable++;
    else if (c < 0x20) {
      // backspace, tab, escape and form feed count as text
      if (c === 0x08 || c === 0x09 || c === 0x1b || c === 0x0c) s.printable++;
      else {
        if (c === 0) s.nul++;
        s.nonprintable++;
      }
    } else s.printable++;
  }
  // a trailing ^Z (DOS end of file) is not held against the file
  if (buf.length > 0 && buf[buf.length - 1] === 0x1a) s.nonprintable--;
  return s;
}

/** git's guess that content is binary: a lone CR, a NUL, or more than 1 control character in 128. */
function looksBinary(s: TextStats): boolean {
  return s.lonecr > 0 || s.nul > 0 || s.printable >> 7 < s.nonprintable;
}

/** Whether blob content is text with CRLF in it: git then leaves CRLF alone under text=auto/autocrlf. */
export function hasCrlfText(blob: Uint8Array): boolean {
  if (blob.indexOf(0x0d) < 0) return false;
  const s = gatherStats(blob);
  return s.crlf > 0 && !looksBinary(s);
}

/** Whether checkout adds CRs to content with these stats. */
function addsCr(s: TextStats, c: Conversion): boolean {
  if (c.crlf === 'binary' || c.eol !== 'crlf' || s.lonelf === 0) return false;
  if (c.crlf === 'auto' && (s.lonecr > 0 || s.crlf > 0 || looksBinary(s))) return false;
  return true;
}

/**
 * Whether toGit of `bytes` needs to know if the path's index entry has CRLF (hasCrlfText of that
 * blob); callers read the blob only then.
 */
export function consultsIndex(bytes: Uint8Array, c: Conversion): boolean {
  return c.crlf === 'auto' && bytes.indexOf(0x0d) >= 0;
}

export interface ToGitResult {
  data: Uint8Array;
  /**
   * What checkout would not give back (core.safecrlf): 'crlf' when CRLF is stored as LF and
   * checkout would write LF, 'lf' when an LF is stored that checkout would write as CRLF.
   */
  lost: 'crlf' | 'lf' | null;
}

function crlfToGit(bytes: Uint8Array, c: Conversion, indexHasCrlf: boolean): ToGitResult {
  if (c.crlf === 'binary' || bytes.length === 0) return { data: bytes, lost: null };
  const s = gatherStats(bytes);
  let strip = s.crlf > 0;
  if (c.crlf === 'auto') {
    if (looksBinary(s)) return { data: bytes, lost: null };
    if (indexHasCrlf) strip = false;
  }
  // what the file would be after this add and a checkout: core.safecrlf's round trip
  const after = { ...s };
  if (strip) {
    after.lonelf += after.crlf;
    after.crlf = 0;
  }
  if (addsCr(after, c)) {
    after.crlf += after.lonelf;
    after.lonelf = 0;
  }
  const lost = s.crlf > 0 && after.crlf === 0 ? 'crlf' : s.lonelf > 0 && after.lonelf === 0 ? 'lf' : null;
  if (!strip) return { data: bytes, lost };
  const out = new Uint8Array(bytes.length - s.crlf);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    // text=auto has ruled out lone CRs, so every CR goes; text drops only a CR before an LF
    if (b === 0x0d && (c.crlf === 'auto' || bytes[i + 1] === 0x0a)) continue;
    out[n++] = b;
  }
  return { data: out.subarray(0, n), lost };
}

function crlfToWorktree(blob: Uint8Array, c: Conversion): Uint8Array {
  if (blob.length === 0 || c.crlf === 'binary' || c.eol !== 'crlf') return blob;
  const s = gatherStats(blob);
  if (!addsCr(s, c)) return blob;
  const out = new Uint8Array(blob.length + s.lonelf);
  let n = 0;
  for (let i = 0; i < blob.length; i++) {
    const b = blob[i]!;
    if (b === 0x0a && (i === 0 || blob[i - 1] !== 0x0d)) out[n++] = 0x0d;
    out[n++] = b;
  }
  return out.subarray(0, n);
}

const DOLLAR = 0x24;
const isId = (buf: Uint8Array, at: number): boolean => buf[at] === 0x49 && buf[at + 1] === 0x64; // "Id"

/** `$Id: …$` (on one line) back to `$Id$`. */
function identToGit(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i++]!;
    out.push(b);
    if (b !== DOLLAR || bytes.length - i <= 3 || !isId(bytes, i) || bytes[i + 2] !== 0x3a) continue;
    const close = bytes.indexOf(DOLLAR, i + 3);
    if (close < 0) break;
    if (bytes.subarray(i + 3, close).includes(0x0a)) continue; // a line break before the next $
    out.push(0x49, 0x64, DOLLAR);
    i = close + 1;
  }
  for (; i < bytes.length; i++) out.push(bytes[i]!);
  return Uint8Array.from(out);
}

/** `$Id$` (and a git-style `$Id: …$`) to `$Id: <blob id> $`. */
function identToWorktree(blob: Uint8Array): Uint8Array {
  const expanded = Buffer.from(`Id: ${hashBlob(blob)} $`, 'latin1');
  const out: number[] = [];
  let i = 0;
  while (i < blob.length) {
    const b = blob[i++]!;
    out.push(b);
    if (b !== DOLLAR || blob.length - i < 3 || !isId(blob, i)) continue;
    if (blob[i + 2] === DOLLAR) i += 3;
    else if (blob[i + 2] === 0x3a) {
      const close = blob.indexOf(DOLLAR, i + 3);
      if (close < 0) break;
      const inner = blob.subarray(i + 3, close);
      if (inner.includes(0x0a)) continue;
      // spaces inside: another version control system's id, kept as it is
      const space = blob.subarray(i + 4, close).indexOf(0x20);
      if (space >= 0 && i + 4 + space < close - 1) continue;
      i = close + 1;
    } else continue;
    for (const e of expanded) out.push(e);
  }
  for (; i < blob.length; i++) out.push(blob[i]!);
  return Uint8Array.from(out);
}

/** Whether content has an `$Id$` or `$Id:…$` that ident would rewrite. */
function hasIdent(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(DOLLAR); at >= 0; at = bytes.indexOf(DOLLAR, at + 1)) {
    if (bytes.length - at - 1 >= 3 && isId(bytes, at + 1) && (bytes[at + 3] === DOLLAR || bytes[at + 3] === 0x3a)) return true;
  }
  return false;
}

/**
 * What `git add` stores for working-tree content `bytes`. `indexHasCrlf`: the path's index entry
 * holds text with CRLF (hasCrlfText); it matters only when consultsIndex says so.
 */
export function toGit(bytes: Uint8Array, c: Conversion, indexHasCrlf = false): ToGitResult {
  const result = crlfToGit(bytes, c, indexHasCrlf);
  if (c.ident && hasIdent(result.data)) result.data = identToGit(result.data);
  return result;
}

/** What `git checkout` writes for blob content `blob`. */
export function toWorktree(blob: Uint8Array, c: Conversion): Uint8Array {
  const expanded = c.ident && hasIdent(blob) ? identToWorktree(blob) : blob;
  return crlfToWorktree(expanded, c);
}
