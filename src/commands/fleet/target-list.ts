import type { ProfilesDocument } from '../../core/config/profiles.js';
import { profileNamed, unknownProfile } from '../../core/config/profiles.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';

/** A range holds at most this many names, so a typo such as `nas[1-99999]` fails fast instead of naming 99999 profiles. */
const MAX_RANGE = 1000;

function badTargets(message: string, hint?: string): StorError {
  return new StorError(E.BAD_TARGETS, message, {
    hint:
      hint ?? 'give profile names, ranges such as nas[1-3] or nas[01-12], tags such as @prod, or all, comma-separated',
  });
}

/** Splits on the commas that are not inside brackets: `nas[1-3,7],web` is [`nas[1-3,7]`, `web`]. */
function splitTop(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of list) {
    if (c === '[') depth++;
    if (c === ']') depth--;
    if (depth < 0) throw badTargets(`unbalanced "]" in --targets ${JSON.stringify(list)}`);
    if (c === ',' && depth === 0) {
      items.push(current);
      current = '';
    } else current += c;
  }
  if (depth !== 0) throw badTargets(`unbalanced "[" in --targets ${JSON.stringify(list)}`);
  items.push(current);
  return items.map((i) => i.trim()).filter((i) => i !== '');
}

/** `1-3` → 1, 2, 3; `01-12` → 01 … 12 (the start's leading zero sets the width); `7` → 7. */
function expandPart(part: string, item: string): string[] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
  if (!m) throw badTargets(`cannot read the range [${part}] in ${JSON.stringify(item)}`);
  const from = m[1]!;
  const to = m[2] ?? from;
  const start = Number(from);
  const end = Number(to);
  if (end < start) throw badTargets(`the range [${part}] in ${JSON.stringify(item)} runs backwards`);
  if (end - start + 1 > MAX_RANGE)
    throw badTargets(`the range [${part}] in ${JSON.stringify(item)} names more than ${MAX_RANGE} targets`);
  const width = from.length > 1 && from.startsWith('0') ? from.length : 0;
  return Array.from({ length: end - start + 1 }, (_, i) => String(start + i).padStart(width, '0'));
}

/** `nas[1-2]-[a,b]` style expansion of one item, bracket by bracket. */
function expandRanges(item: string): string[] {
  const open = item.indexOf('[');
  if (open < 0) return [item];
  const close = item.indexOf(']', open);
  const head = item.slice(0, open);
  const values = item
    .slice(open + 1, close)
    .split(',')
    .flatMap((part) => expandPart(part, item));
  const tails = expandRanges(item.slice(close + 1));
  return values.flatMap((v) => tails.map((t) => `${head}${v}${t}`));
}

/** Every tag some profile carries, sorted. */
export function knownTags(doc: ProfilesDocument): string[] {
  return [...new Set(Object.values(doc.profiles).flatMap((p) => p.tags ?? []))].sort();
}

/**
 * The profile names a `--targets` list selects, in the order given, each once: names, ranges
 * (`nas[1-3]`, `nas[01-12]`), tags (`@prod`) and `all` (or `@all`). A name no profile has, or a tag none
 * carries, is a usage error naming what exists, before any target is contacted.
 */
export function resolveTargetList(list: string, doc: ProfilesDocument): string[] {
  const all = Object.keys(doc.profiles).sort();
  const names: string[] = [];
  for (const item of splitTop(list)) {
    // `@all` as Ansible's group of every host (an imported inventory's `all` is no tag).
    if (item === 'all' || item === '@all') names.push(...all);
    else if (item.startsWith('@')) {
      const tag = item.slice(1);
      const tagged = all.filter((n) => profileNamed(doc, n)!.tags?.includes(tag));
      if (tagged.length === 0) {
        const tags = knownTags(doc);
        throw badTargets(
          `no profile has the tag ${JSON.stringify(tag)}`,
          tags.length
            ? `known tags: ${tags.map((t) => `@${t}`).join(', ')}`
            : 'tag profiles with `stor profile tag <name> <tag>`',
        );
      }
      names.push(...tagged);
    } else {
      for (const name of expandRanges(item)) {
        // A usage error (exit 2, docs/REMOTE.md "Fleets"), as a tag no profile carries: the list is
        // read before anything is contacted, unlike `--profile NAME`'s NOT_FOUND.
        if (!profileNamed(doc, name))
          throw badTargets(`--targets: no profile named ${JSON.stringify(name)}`, unknownProfile(name, all).hint);
        names.push(name);
      }
    }
  }
  if (names.length === 0) throw badTargets(`--targets ${JSON.stringify(list)} names no target`);
  return [...new Set(names)];
}
