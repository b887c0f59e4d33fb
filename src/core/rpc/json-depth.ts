/**
 * How deep an answer may nest. 25.10.1 writes each message with `json.dumps` (truenas_api_client's
 * wrapper of Python's json module, MW/api/base/server/ws_handler/rpc.py:53), whose encoder
 * recurses per level and fails at the interpreter's recursion limit (1000 by default; a failure
 * it sends as an INTERNAL_ERROR instead), so no appliance answer is deeper. A deeper one is a
 * hostile or broken peer, and reading it with recursive code (validation, rendering) would
 * exhaust the stack.
 */
export const MAX_ANSWER_DEPTH = 1000;

/**
 * Whether the JSON text `text` nests arrays and objects more than `max` deep. One pass over the
 * text, no recursion and no parse, so it is safe on any input and run before JSON.parse.
 */
export function jsonNestedDeeperThan(text: string, max: number): boolean {
  // Nesting deeper than `max` takes more than `max` opening brackets: a text with fewer (any
  // answer but a hostile one) is let through after two native searches, not a loop over each
  // of its characters in JavaScript (a fleet run's agent reads one answer per target).
  if (!moreOpeningsThan(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Whether `text` holds more than `max` of `[` and `{` together, strings or not. */
function moreOpeningsThan(text: string, max: number): boolean {
  let count = 0;
  for (const bracket of ['[', '{']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++count > max) return true;
    }
  }
  return false;
}
