// Ref names as git accepts them, in one place: the rules of `git check-ref-format` for any ref
// patchtx reads or writes, and on top of them the ones `git branch` adds for a branch a caller
// names.
import { PatchtxError } from '../../errors.js';

/** git's rules for ref names (check-ref-format), minus the ones that only matter for the CLI. */
export function isValidRefName(ref: string): boolean {
  if (ref === 'HEAD' || /^[A-Z][A-Z0-9_]*$/.test(ref)) return true;
  if (!ref.startsWith('refs/') || ref.endsWith('/') || ref.endsWith('.') || ref === '@') return false;
  // eslint-disable-next-line no-control-regex -- git refuses control characters in ref names
  if (/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\//.test(ref)) return false;
  return ref.split('/').every((c) => c !== '' && !c.startsWith('.') && !c.endsWith('.lock'));
}

/** The full name of the ref a caller names: `refs/...` as given, anything else a branch under
 * refs/heads/. A usage error when git would refuse it. */
export function normaliseRefName(name: string): string {
  const full = name.startsWith('refs/') ? name : `refs/heads/${name}`;
  // git refuses a branch named HEAD (`git branch HEAD`): it would shadow HEAD in every revision;
  // and one starting with '-', which would read as an option
  if (!isValidRefName(full) || full === 'refs/heads/HEAD' || name.startsWith('-')) {
    throw new PatchtxError('usage', `'${name}' is not a valid ref name`, { ref: name });
  }
  return full;
}
