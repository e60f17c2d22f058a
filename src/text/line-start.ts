// Whether a text has a line of a given form, for telling patch formats apart. A `/m` regular
// expression anchored with `^` tries every position of the text, which on a patch of a thousand
// files (most of a megabyte) costs milliseconds each time; here the string every such line starts
// with is found with indexOf, a fast scan, and only where it begins a line is the rest of the form
// checked, by a sticky regular expression from that very position.

/** The characters after which `^` matches in a multiline regular expression. */
function isLineBreak(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

/**
 * What `/^<start><rest>/m` tests: a line of `text` begins with `start`, and `form` (a sticky,
 * multiline regular expression that starts with `start` itself) matches from there. `anchor`, a
 * part of `start`, is what is searched for: indexOf slows down when the string searched for
 * begins with a character the text is full of (`diff --git ` in source code: the `d`s), so the
 * caller may name a part that begins with a rarer one.
 */
export function hasLineOf(text: string, start: string, form?: RegExp, anchor = start): boolean {
  const skip = start.indexOf(anchor);
  for (let found = text.indexOf(anchor, skip); found !== -1; found = text.indexOf(anchor, found + 1)) {
    const at = found - skip;
    if ((at > 0 && !isLineBreak(text.charCodeAt(at - 1))) || !text.startsWith(start, at)) continue;
    if (form === undefined) return true;
    form.lastIndex = at;
    if (form.test(text)) return true;
  }
  return false;
}
