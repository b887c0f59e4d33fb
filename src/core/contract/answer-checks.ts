/**
 * How the typed client checks answers (client.ts). zod compiles a parser for an object schema at
 * its first use (`new Function`, its "fastpass"), which no code cache keeps: in a command's own
 * process, which checks one or two answers, that costs more than it saves, so answers are checked
 * without it unless they are long lists. The session agent lives for many commands and checks the
 * same schemas again and again (a fleet run: one `auth.me` per target), where a compiled parser
 * checks in about half the time (bench/HISTORY.md): it sets `compile` as it starts (agent.ts). The
 * schemas are the same; lists of 64 entries or more are checked compiled in every process already.
 */
export const answerChecks = { compile: false };
