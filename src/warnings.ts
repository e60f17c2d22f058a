// A warning says what a run did that the caller may not have meant, though it succeeded. Like
// errors, warnings carry a stable `kind` from one closed table (WARNING_KINDS), so callers can act
// on them without reading the message; docs/json.md lists the kinds from this table
// (test/warnings.test.ts).

/** Every warning kind and what it means, in the order docs/json.md lists them. */
export const WARNING_KINDS = {
  lenient_match:
    'a chunk matched only with whitespace or typographic punctuation ignored (`pass` names how; `+` lines re-indented where leading whitespace was ignored)',
  ambiguous_match: 'a chunk matches at more than one place and was applied at the first (`candidates` are the others)',
  nonstandard_form: 'a form V4A does not have was read as the V4A one (an `@@` line closed with ` @@`)',
  overwrite: 'an Add File or a move replaced a file that exists',
  dirty_included: 'a touched path had uncommitted changes that the commit took in (`replaced`: the patch replaced them; they were saved with the note)',
  line_endings: "git's `core.safecrlf` check: the file's line endings would not survive a checkout unchanged",
  note: 'after the commit point, something the transaction could not finish (the patch note, the redo history, a file left as it was: `path`); the commit stands',
  commit_id_unknown:
    "check: the commit's id is known only once it is made (`reasons`: `signing`, `prepare-commit-msg`, `commit-msg`: apply signs it, or runs a hook that may edit its message), so `wouldCommit` is null",
  ref_moved_on:
    "recovery: the branch (`ref`) had moved on from the interrupted run's commit (`commit`) to `tip` before the run was finished; the commit stands, the redo history is left as it was, and the checkout is brought in line with `tip`",
  checkout_switched: "recovery: this checkout no longer has the interrupted run's branch (`ref`) checked out; its working tree and index were left as they are",
  journal_removed:
    'recovery: a journal that could not be read (`reason`: `empty`, a run that died while starting, or why it is unusable) was removed; nothing of its run had landed',
  regenerated_differs:
    "show --regenerate: the patch made from the commit's diff would not make the commit's tree again on its parent (`expected`, `actual`: the trees; `path`: a file git would store otherwise than the commit holds it, or none)",
  notes_not_pushed:
    'push: the branch landed, but the notes ref (`ref`: the patch texts of its commits) was not pushed (`reason`); the notes stay here until the next push',
} as const satisfies Record<string, string>;

export type WarningKind = keyof typeof WARNING_KINDS;

/** What every warning has: its kind, a sentence saying what happened, and the path it is about
 * ("" when it is about none); each kind may add data of its own, named in its meaning above. */
export interface Warning<K extends WarningKind = WarningKind> {
  kind: K;
  message: string;
  path: string;
}
