// `replay --dry-run`: the whole log checked without writing anything. Each entry is planned by
// the engine on the files as the entries before it left them (kept in memory), the rest read from
// the branch's tip commit, so an entry that depends on an earlier one is checked after it. The
// checkout's uncommitted edits and git's content conversions are not part of this check.
import { FileContent, type ContentLookup } from '../engine/content.js';
import { planContents } from '../engine/plan.js';
import { lookupPaths } from '../git/objects/tree-edit.js';
import type { Limits } from '../patch/limits.js';
import { parsePatch } from '../patch/parse.js';
import type { Session } from '../tx/session.js';
import type { ReplayedFiles } from './replay-verify.js';

export class DryReplay {
  /** the files the entries so far have touched: content, or null once deleted */
  private readonly files = new Map<string, FileContent | null>();
  private readonly directories = new Set<string>();

  constructor(
    private readonly session: Session,
    private readonly tipTree: string | null,
    private readonly options: { strict?: boolean; limits?: Partial<Limits> },
  ) {}

  /** Plans `patchText` (repository paths) on the files as they are now; throws its error (or
   * `verify`'s, shown the result). */
  async check(patchText: string, verify?: (files: ReplayedFiles) => void): Promise<void> {
    const patch = parsePatch(patchText, this.options.limits);
    const paths = patch.hunks.flatMap((h) => (h.kind === 'update' && h.moveTo !== null ? [h.path, h.moveTo] : [h.path]));
    await this.load(paths.filter((p) => !this.files.has(p)));
    const lookup: ContentLookup = {
      read: (p) => this.files.get(p) ?? undefined,
      isDirectory: (p) => this.directories.has(p) || [...this.files].some(([k, v]) => v !== null && k.startsWith(`${p}/`)),
    };
    const plan = planContents(patch, lookup, { strict: this.options.strict, matchWork: this.options.limits?.matchWork });
    verify?.({
      changes: plan.changes,
      before: (p) => this.files.get(p)?.bytes() ?? undefined,
      after: (p) => {
        const content = plan.files.get(p);
        return content === undefined ? undefined : content === null ? null : content.bytes();
      },
    });
    for (const [p, content] of plan.files) this.files.set(p, content);
  }

  private async load(paths: string[]): Promise<void> {
    const found = await lookupPaths(this.session.store, this.tipTree, paths);
    for (const [p, info] of found) {
      if (info.type === 'tree') this.directories.add(p);
      else if (info.type === 'blob') this.files.set(p, FileContent.ofBytes(await this.session.store.readBlob(info.oid, p)));
      else this.files.set(p, null);
    }
  }
}
