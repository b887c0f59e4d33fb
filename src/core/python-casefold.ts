// Python's str.casefold(), which the appliance compares names with (`C=` filters,
// MW/utils/filter_list.py:341-344; SMB share names, MW/plugins/smb.py:1253-1254): the emulator's
// query engine and the client's matching of share names both fold so, and so agree.

/**
 * The code points whose `str.casefold()` (Unicode CaseFolding.txt, C and F mappings) is not the
 * lower case of their upper case: the capital sharp s folds to `ss`, and the dotless i, whose upper
 * case is `I`, folds to itself.
 */
const FOLD_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ['\u1e9e', 'ss'],
  ['\u0131', '\u0131'],
]);

/**
 * Python's str.casefold(), one code point at a time as Python folds (so `ς` and `σ` fold alike
 * wherever they stand, and `ß` → `ss`, `ſ` → `s`).
 */
export function foldString(s: string): string {
  let out = '';
  for (const c of s) out += FOLD_EXCEPTIONS.get(c) ?? c.toUpperCase().toLowerCase();
  return out;
}
