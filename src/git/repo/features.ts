// Repository features patchtx does not handle, refused up front with 'unsupported_repository' and
// the feature's name, rather than half-working later:
//   - object formats other than SHA-1 (extensions.objectformat=sha256), a repository format version
//     above 1, or any repository extension we do not know
//   - alternates (objects/info/alternates, $GIT_ALTERNATE_OBJECT_DIRECTORIES) and
//     $GIT_OBJECT_DIRECTORY: objects we would read or dedupe against live elsewhere
//   - index version 4 (prefix-compressed paths) and split indexes: the index code reads v2/v3 only
//   - sparse checkouts (core.sparseCheckout, index.sparse): paths outside the cone are not on disk
//   - per path: a `filter` attribute (Git LFS and other clean/smudge filters) and
//     `working-tree-encoding`, since patchtx never runs filters or re-encodes; the conversions it
//     can do as git does (line endings, ident: convert.ts) are what conversionsForPaths returns
import { open, readdir, readFile } from '../fs/fsx.js';
import path from 'node:path';
import { PatchtxError } from '../../errors.js';
import { attributesOf, loadAttributeFiles, type AttributeValue } from './attributes.js';
import { GitConfig } from './config.js';
import { conversionConfig, conversionFor, type Conversion } from '../worktree/convert.js';
import type { Repository } from './repository.js';

function refuse(feature: string, message: string, data: Record<string, unknown> = {}): PatchtxError {
  return new PatchtxError('unsupported_repository', `unsupported repository: ${message}`, { feature, ...data });
}

/** Extensions patchtx can live with (lower-case, as config keys are compared). */
const KNOWN_EXTENSIONS = new Set(['noop', 'noop-v1', 'preciousobjects', 'partialclone', 'worktreeconfig', 'objectformat', 'refstorage']);

function checkFormat(config: GitConfig): void {
  const version = Number(config.get('core.repositoryformatversion') ?? '0');
  if (!Number.isInteger(version) || version > 1) {
    throw refuse('repositoryformatversion', `repository format version ${config.get('core.repositoryformatversion')} is newer than patchtx understands`);
  }
  const objectFormat = (config.get('extensions.objectformat') ?? 'sha1').toLowerCase();
  if (objectFormat !== 'sha1') {
    throw refuse('objectformat', `object format ${objectFormat} (extensions.objectformat); patchtx supports SHA-1 repositories only`, {
      objectFormat,
    });
  }
  const refStorage = (config.get('extensions.refstorage') ?? 'files').toLowerCase();
  if (refStorage !== 'files') {
    throw refuse('refstorage', `ref storage ${refStorage} (extensions.refstorage); patchtx supports the files backend only`);
  }
  if (version === 1) {
    for (const e of config.entries) {
      if (e.section === 'extensions' && e.subsection === null && !KNOWN_EXTENSIONS.has(e.name)) {
        throw refuse(`extensions.${e.name}`, `unknown repository extension extensions.${e.name}`);
      }
    }
  }
}

async function checkAlternates(repo: Repository, env: NodeJS.ProcessEnv): Promise<void> {
  if (env.GIT_ALTERNATE_OBJECT_DIRECTORIES) {
    throw refuse('alternates', 'alternate object directories ($GIT_ALTERNATE_OBJECT_DIRECTORIES)');
  }
  if (env.GIT_OBJECT_DIRECTORY) throw refuse('object-directory', 'a relocated object directory ($GIT_OBJECT_DIRECTORY)');
  const file = path.join(repo.commonDir, 'objects', 'info', 'alternates');
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text !== null && text.split('\n').some((l) => l.trim() !== '' && !l.startsWith('#'))) {
    throw refuse('alternates', `alternate object directories (${file}), as made by clone --shared or --reference`, { file });
  }
}

/** Walks the v2/v3 entries of an index buffer to its extensions and reports whether one is "link". */
export function indexHasSplitLink(buf: Buffer): boolean {
  if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return false;
  const version = buf.readUInt32BE(4);
  const count = buf.readUInt32BE(8);
  let at = 12;
  for (let n = 0; n < count; n++) {
    if (at + 62 > buf.length) return false;
    const flags = buf.readUInt16BE(at + 60);
    const fixed = 62 + (version >= 3 && flags & 0x4000 ? 2 : 0);
    let nameLength = flags & 0xfff;
    if (nameLength === 0xfff) nameLength = buf.indexOf(0, at + fixed) - (at + fixed);
    at += (fixed + nameLength + 8) & ~7;
  }
  while (at + 8 <= buf.length - 20) {
    if (buf.toString('latin1', at, at + 4) === 'link') return true;
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return false;
}

async function checkIndex(repo: Repository, config: GitConfig): Promise<void> {
  if (repo.workdir === null) return;
  const file = path.join(repo.gitdir, 'index');
  const header = Buffer.alloc(12);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return; // no index yet
  }
  try {
    const { bytesRead } = await handle.read(header, 0, 12, 0);
    if (bytesRead < 12 || header.toString('latin1', 0, 4) !== 'DIRC') {
      throw refuse('index', `${file} is not a git index`, { file });
    }
  } finally {
    await handle.close();
  }
  const version = header.readUInt32BE(4);
  if (version === 4) {
    throw refuse('index-v4', 'index version 4 (prefix-compressed); run `git update-index --index-version 3` to convert', { version });
  }
  if (version !== 2 && version !== 3) throw refuse('index-version', `index version ${version}`, { version });

  if (config.getBool('core.splitIndex')) {
    throw refuse('split-index', 'split index (core.splitIndex); run `git update-index --no-split-index` and unset core.splitIndex');
  }
  // `git update-index --split-index` works without the config; shared index files can also outlive a
  // split index, so only a "link" extension in the index itself is proof
  const names = await readdir(repo.gitdir).catch(() => [] as string[]);
  if (names.some((n) => n.startsWith('sharedindex.')) && indexHasSplitLink(await readFile(file))) {
    throw refuse('split-index', 'split index; run `git update-index --no-split-index`');
  }
}

function checkSparse(config: GitConfig): void {
  if (config.getBool('core.sparseCheckout')) {
    throw refuse('sparse-checkout', 'sparse checkout (core.sparseCheckout); run `git sparse-checkout disable` first');
  }
  if (config.getBool('index.sparse')) throw refuse('sparse-index', 'sparse index (index.sparse)');
}

/** Refuses repositories patchtx cannot transact on safely; returns quietly otherwise. */
export async function checkRepositorySupported(repo: Repository, config: GitConfig, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  checkFormat(config);
  checkSparse(config);
  await checkAlternates(repo, env);
  await checkIndex(repo, config);
}

export interface AttributeCheckOptions {
  config?: GitConfig;
  env?: NodeJS.ProcessEnv;
}

const CONVERSION_ATTRIBUTES = ['filter', 'working-tree-encoding', 'text', 'crlf', 'eol', 'ident'];

/**
 * How git converts each of `paths` between the working tree and the object store (convert.ts),
 * reading .gitattributes through `readTextAt` (the caller picks the tree) plus info/attributes and
 * core.attributesFile. Refuses (unsupported_repository) a path git would run through a filter
 * (Git LFS and other clean/smudge drivers) or re-encode (working-tree-encoding): patchtx does
 * neither.
 */
export async function conversionsForPaths(
  repo: Repository,
  paths: readonly string[],
  readTextAt: (repoPath: string) => Promise<string | null>,
  options: AttributeCheckOptions = {},
): Promise<Map<string, Conversion>> {
  const result = new Map<string, Conversion>();
  if (paths.length === 0) return result;
  const settings = conversionConfig(options.config ?? new GitConfig());
  const files = await loadAttributeFiles({ repo, readTextAt, config: options.config, env: options.env }, paths);
  const none = conversionFor(new Map(), settings);
  for (const p of paths) {
    const applying = files.get(p) ?? [];
    if (applying.length === 0) {
      result.set(p, none); // no attributes file anywhere above it: core.autocrlf alone decides
      continue;
    }
    const attrs = attributesOf(p, applying, CONVERSION_ATTRIBUTES);
    const filter = attrs.get('filter');
    if (filter && typeof filter.value === 'string') {
      throw new PatchtxError(
        'unsupported_repository',
        `${p} has the attribute filter=${filter.value} (${filter.source}); patchtx does not run clean/smudge filters such as Git LFS: make this change with git itself`,
        { feature: 'filter', path: p, filter: filter.value, source: filter.source },
      );
    }
    const encoding = attrs.get('working-tree-encoding');
    // git converts nothing for UTF-8, the encoding it stores
    if (encoding && typeof encoding.value === 'string' && !/^utf-?8$/i.test(encoding.value) && encoding.value !== '') {
      throw new PatchtxError(
        'unsupported_repository',
        `${p} has the attribute working-tree-encoding=${encoding.value} (${encoding.source}); patchtx does not re-encode files between the working tree and git: make this change with git itself`,
        { feature: 'working-tree-encoding', path: p, encoding: encoding.value, source: encoding.source },
      );
    }
    const values = new Map<string, AttributeValue>([...attrs].map(([k, v]) => [k, v.value]));
    result.set(p, conversionFor(values, settings));
  }
  return result;
}
