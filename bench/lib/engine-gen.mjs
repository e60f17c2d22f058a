// Engine benchmark input: one big code-like file and a V4A patch with `chunks` chunks spread
// evenly through it (each: 3 context lines above, 1-2 removed, 1-2 added, 3 context lines below).
import { applyEdits, codeLines, pickEdit, rng } from './codegen.mjs';

export const CONTEXT = 3;

/**
 * Returns {
 *   path, text (the file, '\n'-terminated), patch (full V4A patch text),
 *   diff (the same Update body without the envelope: what applyDiff of @openai/agents-core takes),
 *   expected (the patched file text), chunks, lines
 * }
 */
export function makeEngineCase(nLines, nChunks, seed = 1) {
  const path = `src/generated/big_${nLines}.ts`;
  const file = codeLines(nLines, seed);
  const r = rng(seed ^ 0x5eed);
  const stride = nLines / nChunks;
  const edits = [];
  let from = 0;
  for (let k = 0; k < nChunks; k++) {
    const target = Math.max(from, Math.floor(k * stride + stride / 3));
    const limit = Math.floor((k + 1) * stride) - CONTEXT - 2;
    const e = pickEdit(r, file, target, limit, CONTEXT, `${nLines}_${k}`);
    if (!e) throw new Error(`bench generator: no room for chunk ${k} of ${nLines} lines`);
    edits.push(e);
    from = e.at + e.del + 2 * CONTEXT + 1;
  }
  const { newLines, v4a } = applyEdits(file.lines, edits, CONTEXT);
  const diff = v4a.join('\n') + '\n';
  const patch = `*** Begin Patch\n*** Update File: ${path}\n${diff}*** End Patch\n`;
  return {
    path,
    text: file.lines.join('\n') + '\n',
    patch,
    diff,
    expected: newLines.join('\n') + '\n',
    chunks: edits.length,
    lines: nLines,
  };
}
