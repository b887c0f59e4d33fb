// `node bench/embedded-phases.mjs ROUNDS BUILD…`: where an embedded `STOR_SESSION=off stor whoami`
// spends its CPU, phase by phase, for each BUILD (a directory holding bin/, dist/bundle/,
// package.json and node_modules, as bench/ab.mjs takes). Each build is copied into a temporary
// directory with `globalThis.__mark?.(…)` calls put into its stor.cjs and start.cjs at the points
// named below; a `--require` preload records process.cpuUsage() (user + system) at each mark,
// at the first load of some built-ins and around vm.Script, and prints them at exit. The builds run
// in turn within each round (their own state and code cache each, warmed by two unmeasured
// rounds); the table gives each phase's median CPU. STOR_AB_NODE picks the node (as ab.mjs).
// A measuring aid: a point whose text esbuild no longer writes stops it, naming the mark
// (bench/HISTORY.md, "embedded `whoami`: the phases measured again").
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { cleanup, median, tempDir } from './lib.mjs';

const [roundsArg, ...builds] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 21);
const node = process.env.STOR_AB_NODE ?? process.execPath;

const PRELOAD = `'use strict';
const Module = require('node:module');
const vm = require('node:vm');
const marks = [];
const mark = (what) => {
  const c = process.cpuUsage();
  marks.push([(c.user + c.system) / 1000, what]);
};
globalThis.__mark = mark;
mark('Node bootstrap, to the preload');
const load = Module._load;
Module._load = function (request) {
  const seen = /first-stage\\.cjs|start\\.cjs|^(node:)?(net|tty|os|url|v8|vm)$/.test(request) ? request : undefined;
  const result = load.apply(this, arguments);
  if (seen && !marks.some((m) => m[1] === 'loaded ' + seen)) mark('loaded ' + seen);
  return result;
};
const Script = vm.Script;
vm.Script = function (source, options) {
  mark('start.cjs: to new vm.Script');
  const script = new Script(source, options);
  mark(options && options.cachedData ? 'new vm.Script, with the code cache' : 'new vm.Script, no code cache');
  const run = script.runInThisContext.bind(script);
  script.runInThisContext = (...a) => {
    const wrapper = run(...a);
    return function (...b) {
      mark('runInThisContext');
      const r = wrapper.apply(this, b);
      mark("the bundle's top level");
      return r;
    };
  };
  return script;
};
process.on('exit', () => {
  mark('to exit');
  require('node:fs').appendFileSync(process.env.STOR_PHASES_OUT, JSON.stringify(marks) + '\\n');
});
`;

// [text in the file, put the mark before or after it, the mark's name: what ran since the one before]
const STOR_MARKS = [
  ['async function main(line) {\n', 'after', 'main: called'],
  ['  const io = (await Promise.resolve().then(() => (init_io()', 'before', 'main: compile cache enabled'],
  ['  const headStart = await (await Promise.resolve().then(() => (init_early_target()', 'before', 'main: io'],
  [
    '  const { run: run2 } = await Promise.resolve().then(() => (init_cli(), cli_exports));\n',
    'before',
    'main: head start (none: embedded)',
  ],
  ['  process.exitCode = await run2(line, io, headStart', 'before', 'cli.ts loaded'],
  [
    '  const program2 = new StorCommand("stor");\n',
    'before',
    'buildProgram: loadFor (the whoami module: contract, client)',
  ],
  ['  addOptions(program2, globalOptions);\n', 'before', "buildProgram: the root's commander settings"],
  [
    '  for (const [top, entry2] of Object.entries(COMMANDS2)) {\n',
    'before',
    'buildProgram: global options (addOptions)',
  ],
  ['  program2.command("help")', 'before', 'buildProgram: nouns and verbs'],
  ['    await program2.parseAsync([...line.argv], { from: "user" });', 'before', 'buildProgram: help command'],
  ['  const opening = ctx.transport();\n', 'before', 'commander parse, whoami called'],
  [
    '  const transport = await opening;\n  const [me, release] = await Promise.all([callForFields',
    'before',
    'the result schemas asked for (remote only)',
  ],
  [
    '        const appliance = Appliance.open({ stateDir: options33.stateDir });\n',
    'before',
    'embedded transport modules',
  ],
  ['        const appliance = Appliance.open({ stateDir: options33.stateDir });\n', 'after', 'Appliance.open'],
  [
    '          const own2 = options33.apiKey === void 0 ? readAdminKey(options33.stateDir) : null;\n',
    'after',
    'dispatcher, session, admin key read',
  ],
  [
    '  const accounts = appliance.accounts();\n  const user = accounts.users.find((u) => u.id === current.user_id);\n  if (!user || username',
    'before',
    'login: key binding and key rows',
  ],
  [
    '  const user = accounts.users.find((u) => u.id === current.user_id);\n  if (!user || username',
    'before',
    'login: accounts snapshot',
  ],
  [
    '  const [me, release] = await Promise.all([callForFields(transport, "auth.me"), targetRelease(transport)]);\n',
    'before',
    'login: privileges, session',
  ],
  [
    '  const [me, release] = await Promise.all([callForFields(transport, "auth.me"), targetRelease(transport)]);\n',
    'after',
    'the three calls and their checks',
  ],
  ['      io.stdout.write(await render(result, mode));\n', 'after', 'render, write'],
];
const START_MARKS = [
  ['  const helpOnly = line.asksHelp', 'start.cjs: start()'],
  ['  let dir = (0, import_node_path2.join)(cacheDirFrom(env), "code-cache");', 'start.cjs: the bundle read (latin1)'],
  ['  const file = dir === void 0 ? void 0 : cacheFileFor(dir, bundle, st);', 'start.cjs: cache directory checked'],
  ['  let cached = file === void 0 ? void 0 : read(file);', 'start.cjs: cache file named (v8 tag)'],
  ['  const script = new import_node_vm.Script(', 'start.cjs: the code cache read'],
];

const put = (text, [needle, where, name], file) => {
  const found = text.split(needle).length - 1;
  if (found !== 1) throw new Error(`${file}: mark "${name}": its text is found ${found} times, not once`);
  const call = `globalThis.__mark?.(${JSON.stringify(name)});`;
  return text.replace(needle, where === 'before' ? `${call}\n${needle}` : `${needle}${call}\n`);
};

const work = tempDir();
writeFileSync(join(work, 'marks.cjs'), PRELOAD);
const trees = builds.map((b, i) => {
  const src = resolve(b);
  const dest = join(work, `build${i}`);
  mkdirSync(join(dest, 'dist'), { recursive: true });
  cpSync(join(src, 'bin'), join(dest, 'bin'), { recursive: true });
  cpSync(join(src, 'dist/bundle'), join(dest, 'dist/bundle'), { recursive: true });
  cpSync(join(src, 'package.json'), join(dest, 'package.json'));
  symlinkSync(join(src, 'node_modules'), join(dest, 'node_modules'));
  const stor = join(dest, 'dist/bundle/stor.cjs');
  writeFileSync(
    stor,
    STOR_MARKS.reduce((t, m) => put(t, m, stor), readFileSync(stor, 'latin1')),
    'latin1',
  );
  const start = join(dest, 'dist/bundle/start.cjs');
  writeFileSync(
    start,
    START_MARKS.reduce((t, [needle, name]) => put(t, [needle, 'before', name], start), readFileSync(start, 'utf8')),
  );
  for (const d of ['home', 'cache']) mkdirSync(join(dest, d));
  return { name: b, dest, runs: [] };
});

const out = join(work, 'marks.jsonl');
const load0 = loadavg()[0];
for (let i = -2; i < rounds; i++) {
  for (const t of trees) {
    writeFileSync(out, '');
    const r = spawnSync(node, ['--require', join(work, 'marks.cjs'), join(t.dest, 'bin/stor.js'), 'whoami'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        STOR_SESSION: 'off',
        STOR_HOME: join(t.dest, 'home'),
        XDG_CACHE_HOME: join(t.dest, 'cache'),
        STOR_PHASES_OUT: out,
      },
    });
    if (r.status !== 0) throw new Error(`${t.name}: exit ${r.status}: ${r.stderr}`);
    if (i >= 0) t.runs.push(JSON.parse(readFileSync(out, 'utf8')));
  }
}
const load1 = loadavg()[0];
cleanup(work);

const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`${rounds} rounds, node ${version}, load ${load0.toFixed(1)} → ${load1.toFixed(1)}`);
console.log(`| phase (ms of CPU, median) | ${trees.map((t) => t.name).join(' | ')} |`);
console.log(`|---|${trees.map(() => '---|').join('')}`);
const names = trees[0].runs[0].map((m) => m[1]);
for (let k = 0; k < names.length; k++) {
  const cells = trees.map((t) => median(t.runs.map((ms) => (k === 0 ? ms[0][0] : ms[k][0] - ms[k - 1][0]))));
  console.log(`| ${names[k]} | ${cells.map((c) => c.toFixed(1)).join(' | ')} |`);
}
console.log(`| **total** | ${trees.map((t) => median(t.runs.map((ms) => ms.at(-1)[0])).toFixed(1)).join(' | ')} |`);
