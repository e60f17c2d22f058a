// Whether the process that left a journal or a recovery claim behind is still running.
//
// A pid alone does not tell: pids are reused. After a reboot (the power loss the journal exists
// for) the pid of a dead run may belong to any process, and a journal whose pid looks alive is
// reported as a transaction in progress, by every later patchtx, for as long as that process
// runs. So the journal and each claim also record a mark of the process that wrote them
// (markOfThisProcess), and a live pid counts only if the mark still fits:
//   - on Linux, the boot it ran in (/proc/sys/kernel/random/boot_id) and its start time in clock
//     ticks since that boot (field 22 of /proc/<pid>/stat): together they name one process;
//   - everywhere, the machine's uptime when the mark was made: an uptime lower now means the
//     machine has restarted since, so the writer is gone. Uptime, not the wall clock: a clock set
//     after boot (a machine without a battery-backed clock) would make a live process look older
//     than the boot.
// When nothing can be read (no /proc, or another user's processes hidden), a live pid counts as
// alive, as before: a wrong "dead" would let two processes write at once.
import { readFileSync } from 'node:fs';
import { uptime } from 'node:os';

/** What identifies a process beyond its pid (see above); stored as the string markText gives. */
export interface ProcessMark {
  /** Linux: the boot id */
  boot?: string;
  /** Linux: start time in clock ticks since boot */
  ticks?: string;
  /** seconds the machine had been up when the mark was made */
  uptime?: number;
}

const readOr = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
};

/** Field 22 of /proc/<pid>/stat (start time), counted after the command name, which may hold spaces and parentheses. */
function startTicksOf(pid: number | 'self'): string | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

let bootId: string | null | undefined;
function currentBootId(): string | undefined {
  if (bootId === undefined) bootId = readOr('/proc/sys/kernel/random/boot_id')?.trim() || null;
  return bootId ?? undefined;
}

let ownMark: ProcessMark | undefined;
/** This process's mark (read once: its boot and start time do not change). */
export function markOfThisProcess(): ProcessMark {
  if (ownMark === undefined) {
    const boot = currentBootId();
    const ticks = boot === undefined ? undefined : startTicksOf('self');
    ownMark = boot !== undefined && ticks !== undefined ? { boot, ticks, uptime: uptime() } : { uptime: uptime() };
  }
  return ownMark;
}

/** `boot=<id> ticks=<n> uptime=<s>`, the parts that are known, for a claim file or a journal. */
export function markText(mark: ProcessMark): string {
  const parts: string[] = [];
  if (mark.boot !== undefined) parts.push(`boot=${mark.boot}`);
  if (mark.ticks !== undefined) parts.push(`ticks=${mark.ticks}`);
  if (mark.uptime !== undefined) parts.push(`uptime=${mark.uptime}`);
  return parts.join(' ');
}

/** The mark markText wrote; unknown or malformed parts are left out (they make no process look dead). */
export function parseMark(text: string | undefined): ProcessMark | undefined {
  if (text === undefined) return undefined;
  const mark: ProcessMark = {};
  for (const part of text.trim().split(/\s+/)) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 'boot' && /^[0-9a-f-]+$/i.test(value)) mark.boot = value;
    else if (key === 'ticks' && /^\d+$/.test(value)) mark.ticks = value;
    else if (key === 'uptime' && /^\d+(\.\d+)?$/.test(value)) mark.uptime = Number(value);
  }
  return mark;
}

/**
 * Whether process `pid` runs (this process counts as running). With `mark`, the process that has
 * the pid now must also be the one that made the mark, as far as can be told (see above).
 */
export function processAlive(pid: number, mark?: ProcessMark): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (mark === undefined) return true;
  if (mark.uptime !== undefined && uptime() < mark.uptime) return false;
  if (mark.boot !== undefined && mark.ticks !== undefined) {
    const boot = currentBootId();
    if (boot !== undefined && boot !== mark.boot) return false;
    const ticks = boot === undefined ? undefined : startTicksOf(pid);
    if (ticks !== undefined) return ticks === mark.ticks;
  }
  return true;
}
