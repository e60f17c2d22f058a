// Whether a string is an object id as git writes one: 40 lowercase hex digits. The entries of
// every tree, index update and tree edit a transaction writes are checked this way, several
// thousand of them in a 1,000-file patch: a table lookup per character costs less than a call of
// a regular expression.

const HEX_DIGIT = new Uint8Array(128);
for (const c of '0123456789abcdef') HEX_DIGIT[c.charCodeAt(0)] = 1;

export function isObjectId(s: string): boolean {
  if (s.length !== 40) return false;
  for (let i = 0; i < 40; i++) {
    // a code above 127 reads as undefined: not a digit
    if (HEX_DIGIT[s.charCodeAt(i)] !== 1) return false;
  }
  return true;
}
