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
  note: 'after the commit point, something the transaction could not finish (the patch note, the redo history, a file left as it was); the commit stands',
} as const satisfies Record<string, string>;

export type WarningKind = keyof typeof WARNING_KINDS;
