// A unified diff made by `git diff` holds a file's lines as git stores them (its normalized form),
// which in a repository that converts line endings (core.autocrlf, the `text` and `eol`
// attributes) is not what the working tree holds: `git diff` prints LF where the working file has
// CRLF. `git apply` patches that stored form and checks the result out again; so does this, given
// the two conversions of the file. `git apply --index` commits the patched stored form as it is,
// so the result keeps it for the commit. As git apply, a diff whose old lines end with CR
// (`diff -u` of two CRLF files) is taken to be made against the file as the working tree holds
// it, CRs kept.
import type { DiffHunk } from '../patch/types.js';

/** The conversions of one file between the working tree and what git stores (src/git/worktree/convert.ts). */
export interface LineForm {
  /** what `git add` would store for the working-tree text */
  toGit(text: string): string;
  /** what `git checkout` would write for stored text */
  toWorktree(text: string): string;
}

/** Whether a context or removed line of the hunks ends with CRLF (git apply's test for keeping CRs). */
export function keepsCrlf(hunks: readonly DiffHunk[]): boolean {
  return hunks.some((h) => h.before.some((l) => l.endsWith('\r\n')));
}

/** A diff's result: the working-tree text, and (placed in the stored form) what git stores. */
export interface Patched {
  text: string;
  /**
   * the result in the stored form, which `git apply --index` commits as it is (it runs no clean
   * conversion on it; added lines ending with CR keep it there); absent when the file was
   * patched as it is
   */
  stored?: string;
}

/**
 * `patchText` (a function of a file's text) applied as `git apply` applies it: to the stored form
 * of `text`, the result checked out again; to `text` as it is when the file has no conversion or
 * `keepCrlf` says the patch was made against it.
 */
export function inStoredForm(text: string, form: LineForm | undefined, keepCrlf: boolean, patchText: (text: string) => string): Patched {
  if (form === undefined || keepCrlf) return { text: patchText(text) };
  const stored = patchText(form.toGit(text));
  return { text: form.toWorktree(stored), stored };
}
