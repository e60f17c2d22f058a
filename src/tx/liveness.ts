// Whether the process that left a journal or a recovery claim behind is still running.
//
// A pid alone does not tell: pids are reused. After a reboot (the power loss the journal exists
// for) the pid of a dead run may belong to any process, and a journal whose pid looks alive is
// reported as a transaction in progress, by every later patchtx, for as long as that process
// runs. So the journal and each claim also record a mark of the process that wrote them
// (markOfThisProcess), and a live pid counts only if the mark still fits.
//
// Wrongly calling a live process dead is the one thing to avoid: its transaction would be
// recovered while it runs, two writers at once. So every rule below says "dead" only on proof:
//   - Linux: the boot id (/proc/sys/kernel/random/boot_id) and the process's start time in clock
//     ticks since boot (field 22 of /proc/<pid>/stat) name one process. Another boot id means the
//     writer is gone. The start times are compared only between processes in the same pid and
//     time namespaces (the pid means the same process, and the kernel shifts start times by the
//     reader's time namespace) and only when /proc is this process's own (a /proc mounted for
//     another pid namespace answers for other processes: /proc/self is then not our pid).
//   - Elsewhere, or without a usable /proc: the machine's uptime when the mark was made. An uptime
//     lower now, by more than UPTIME_MARGIN_S, means the machine has restarted since. The margin
//     covers uptimes read at different precisions (hundredths from /proc/uptime, whole seconds
//     from the clock) and clocks that move (macOS derives uptime from the wall clock).
// A pid whose process has ended but is not reaped yet (a zombie, /proc's state Z) is gone.
// When nothing proves the writer gone, a live pid counts as the writer, as it always did. The
// journal is a lock for one machine and one pid namespace: a pid names nothing elsewhere.
import { readFileSync, readlinkSync } from 'node:fs';
import { uptime } from 'node:os';

/** What identifies a process beyond its pid (see above); stored as the text markText gives. */
export interface ProcessMark {
  /** Linux: the boot id */
  boot?: string;
  /** Linux: the pid and time namespaces, as /proc/self/ns names them */
  ns?: string;
  /** Linux: start time in clock ticks since boot */
  ticks?: string;
  /** seconds the machine had been up when the mark was made */
  uptime?: number;
}

/** seconds by which the uptime must have gone back before it proves a restart (see above) */
const UPTIME_MARGIN_S = 600;

const readOrUndefined = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
};

const linkOrEmpty = (file: string): string => {
  try {
    return readlinkSync(file);
  } catch {
    return '';
  }
};

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): field 3 first. */
function statFieldsOf(pid: number): string[] | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  const close = stat?.lastIndexOf(')') ?? -1;
  return stat === undefined || close === -1 ? undefined : stat.slice(close + 2).split(' ');
}

/** Field 22 (start time in clock ticks). */
function startTicksIn(fields: string[] | undefined): string | undefined {
  const ticks = fields?.[19];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

/** Whether field 3 (state) says the process has ended (Z: not reaped yet; X: being removed). */
function endedIn(fields: string[] | undefined): boolean {
  return fields?.[0] === 'Z' || fields?.[0] === 'X';
}

interface LinuxView {
  boot: string;
  ns: string;
}

let linuxView: LinuxView | null | undefined;
/** This process's boot id and namespaces, when /proc is there and is this process's own. */
function linuxViewHere(): LinuxView | undefined {
  if (linuxView === undefined) {
    const boot = readOrUndefined('/proc/sys/kernel/random/boot_id')?.trim();
    const own = linkOrEmpty('/proc/self') === String(process.pid);
    linuxView = boot && own ? { boot, ns: `${linkOrEmpty('/proc/self/ns/pid')},${linkOrEmpty('/proc/self/ns/time')}` } : null;
  }
  return linuxView ?? undefined;
}

let ownMark: ProcessMark | undefined;
/** This process's mark (made once: its boot and start time do not change). */
export function markOfThisProcess(): ProcessMark {
  if (ownMark === undefined) {
    const view = linuxViewHere();
    const ticks = view === undefined ? undefined : startTicksIn(statFieldsOf(process.pid));
    ownMark = view !== undefined && ticks !== undefined ? { boot: view.boot, ns: view.ns, ticks, uptime: uptime() } : { uptime: uptime() };
  }
  return ownMark;
}

/** `boot=<id> ns=<pid ns>,<time ns> ticks=<n> uptime=<s>`, the parts that are known. */
export function markText(mark: ProcessMark): string {
  const parts: string[] = [];
  if (mark.boot !== undefined) parts.push(`boot=${mark.boot}`);
  if (mark.ns !== undefined) parts.push(`ns=${mark.ns}`);
  if (mark.ticks !== undefined) parts.push(`ticks=${mark.ticks}`);
  if (mark.uptime !== undefined) parts.push(`uptime=${mark.uptime}`);
  return parts.join(' ');
}

/** The mark markText wrote; unknown or malformed parts are left out (they prove nothing). */
export function parseMark(text: string | undefined): ProcessMark | undefined {
  if (text === undefined) return undefined;
  const mark: ProcessMark = {};
  for (const part of text.trim().split(/\s+/)) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 'boot' && /^[0-9a-f-]+$/i.test(value)) mark.boot = value;
    else if (key === 'ns' && /^[\w:[\],]*$/.test(value)) mark.ns = value;
    else if (key === 'ticks' && /^\d+$/.test(value)) mark.ticks = value;
    else if (key === 'uptime' && /^\d+(\.\d+)?$/.test(value)) mark.uptime = Number(value);
  }
  return mark;
}

/**
 * Whether process `pid` runs (this process counts as running). With `mark`, false also when the
 * mark proves that the process that has the pid now is not the one that made it (see above).
 */
export function processAlive(pid: number, mark?: ProcessMark): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const here = linuxViewHere();
  const fields = here === undefined ? undefined : statFieldsOf(pid);
  // a zombie (killed, not yet reaped by its parent) still has its pid, and runs nothing
  if (endedIn(fields)) return false;
  if (mark === undefined) return true;
  if (mark.boot !== undefined && here !== undefined) {
    if (mark.boot !== here.boot) return false;
    if (mark.ticks !== undefined && mark.ns === here.ns) {
      const ticks = startTicksIn(fields);
      if (ticks !== undefined) return ticks === mark.ticks;
    }
    return true; // the same boot, nothing more to tell by: the uptime only grew
  }
  return !(mark.uptime !== undefined && uptime() + UPTIME_MARGIN_S < mark.uptime);
}
