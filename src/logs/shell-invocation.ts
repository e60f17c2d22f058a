// Whether a shell command an agent ran was an apply_patch call, and if so its patch text. Codex
// treats only two shapes as one: `apply_patch PATCH` as argv, and a shell script (`bash -lc`,
// `sh -c`, `zsh -lc`, or a plain command string) that is nothing but `apply_patch <<'EOF'` …
// `EOF`, optionally after `cd DIR &&`. Anything else (`echo x; apply_patch <<EOF`, a pipe) ran
// as an ordinary command and is not a patch of the log: replaying it as one would apply what the
// agent never applied that way.

const PROGRAMS = new Set(['apply_patch', 'applypatch']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);
const SCRIPT_FLAGS = new Set(['-c', '-lc', '-cl']);

/** The first line of a heredoc invocation: `[cd DIR &&] apply_patch <<['"]?TAG['"]?` */
const HEREDOC_HEAD = /^(?:cd\s+(?:'[^']*'|"[^"]*"|[^\s'"&;|]+)\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1\s*$/;

/** The patch text of a script that is exactly an apply_patch heredoc, or null. */
export function patchOfScript(script: string): string | null {
  const text = script.replace(/\r\n/g, '\n').trim();
  const nl = text.indexOf('\n');
  if (nl < 0) return null;
  const head = HEREDOC_HEAD.exec(text.slice(0, nl).trim());
  if (!head) return null;
  const lastNl = text.lastIndexOf('\n');
  if (text.slice(lastNl + 1).trim() !== head[2]) return null;
  // the whole script goes on: the patch parser peels the heredoc and keeps `cd DIR`
  return text;
}

/** The patch text of an argv that runs apply_patch (directly or through a shell), or null. */
export function patchOfArgv(argv: readonly unknown[]): string | null {
  if (!argv.every((a): a is string => typeof a === 'string') || argv.length === 0) return null;
  const program = baseName(argv[0]!);
  if (PROGRAMS.has(program) && argv.length === 2) return argv[1]!;
  if (SHELLS.has(program) && argv.length === 3 && SCRIPT_FLAGS.has(argv[1]!)) return patchOfScript(argv[2]!);
  return null;
}

function baseName(p: string): string {
  const slash = p.lastIndexOf('/');
  return slash < 0 ? p : p.slice(slash + 1);
}
