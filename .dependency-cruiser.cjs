// The layers of src/ and the direction imports may run between them. test/layers.test.ts runs
// these rules over src/ on every `npm test`; a forbidden import fails it, naming the rule and why.
// The same by hand: npx depcruise src -c .dependency-cruiser.cjs   (docs/ARCHITECTURE.md, Layers)
//
//   src/*.ts          entry points (bin-entry, first-stage, start, agent-entry, cli)
//   src/agent         the session agent: runs commands handed over by the first stage
//   src/commands      one folder per verb
//   src/core/session  the client's pooled sessions          src/core/server  stor serve: HTTP, WebSocket
//   src/core/transport  the connection (remote; embedded       src/core/rpc   dispatch to the methods
//                       through rpc dispatch)
//   src/core/appliance  the emulated appliance: methods and machinery
//   src/core/contract, roles, store, config, net, errors(.ts), error-catalogue.ts   the floor
//
// An import runs down this list, never up; the client side (session, transport) and the server side
// (server, rpc) never import each other, except that transport may reach rpc dispatch for the embedded
// appliance. Node built-ins and npm packages may be imported anywhere in src/, except in the first stage
// (first-stage-bare) and for devDependencies (no-dev-dependency).

/** The first stage's sources: what scripts/bundle.mjs lets into dist/bundle/first-stage.cjs (one list, scripts/first-stage-sources.cjs). */
const FIRST_STAGE_SOURCES = require('./scripts/first-stage-sources.cjs');
const exactly = (paths) => `^(${paths.map((p) => p.replace(/[.]/g, '\\.')).join('|')})$`;

/**
 * The cycles allowed today, each by its exact set of files (a cycle through one more file is a new cycle).
 * Two files naming each other's types cost nothing at run time; the rest are to go.
 */
const KNOWN_CYCLES = [
  // For good: the error kinds and the catalogue name each other's types, nothing else.
  { rule: 'no-circular', files: ['src/core/errors.ts', 'src/core/error-catalogue.ts'] },
  // Two files, the way back a type (TlsOptions, ConnectionSettings, ColorLevel): cheap to untangle, not yet done.
  { rule: 'no-circular', files: ['src/core/transport/remote.ts', 'src/core/transport/upload-client.ts'] },
  { rule: 'no-circular', files: ['src/commands/login/login.ts', 'src/commands/login/login-password.ts'] },
  { rule: 'no-circular', files: ['src/commands/output/io.ts', 'src/commands/output/color-level.ts'] },
  // Lazy both ways: the command table loads `completion` on demand, and completion lists the command table.
  { rule: 'no-circular', files: ['src/commands/index.ts', 'src/commands/completion/completion.ts'] },
  { rule: 'no-circular-at-run-time', files: ['src/commands/index.ts', 'src/commands/completion/completion.ts'] },
];

/** A layer rule: no import from `from` may reach `to` (both path patterns); `comment` is the why, shown when it fails. */
const layer = (name, from, to, comment) => ({
  name,
  severity: 'error',
  comment,
  from: { path: from },
  to: { path: to },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    layer(
      'core-not-to-upper',
      '^src/core/',
      '^src/(commands|agent)/|^src/[^/]+$',
      'src/core is below the CLI: it never imports src/commands, src/agent or an entry point (src/*.ts).',
    ),
    layer(
      'commands-not-to-agent-or-entry',
      '^src/commands/',
      '^src/agent/|^src/[^/]+$',
      'A command runs the same in its own process and in the agent: it never imports src/agent or an entry point (src/*.ts).',
    ),
    // The rooms of src/commands (docs/ARCHITECTURE.md, Where things live): output/ at the bottom, framework/ on it,
    // startup/ and shared/ (helpers of several verbs) on both, the verbs' folders and the command table on top.
    layer(
      'commands-output-is-the-floor',
      '^src/commands/output/',
      '^src/commands/(?!output/)',
      'src/commands/output holds what reaches the streams (IO, render, tables, errors, exit codes); it knows no verb, ' +
        'no framework and no start-up: it never imports another folder of src/commands, nor the command table.',
    ),
    layer(
      'commands-framework-not-to-verbs',
      '^src/commands/framework/',
      '^src/commands/(?!(framework|output|startup)/)',
      'src/commands/framework declares and runs verbs; it never imports a verb, shared/ (the helpers of verbs) or the command table: ' +
        'the table registers with it (command-tree.ts).',
    ),
    {
      name: 'commands-framework-not-to-startup',
      severity: 'error',
      comment:
        'src/commands/startup runs around a command (before the CLI loads, after its agent is lost) and builds on the framework, ' +
        'not the other way: the framework names what startup hands it (HeadStart) as a type only.',
      from: { path: '^src/commands/framework/' },
      to: { path: '^src/commands/startup/', dependencyTypesNot: ['type-only'] },
    },
    layer(
      'commands-startup-not-to-verbs',
      '^src/commands/startup/',
      '^src/commands/(?!(framework|output|startup)/|index[.]ts$)',
      'src/commands/startup may read the command table (index.ts), the framework and output; it never imports a verb or shared/.',
    ),
    layer(
      'commands-shared-not-to-verbs',
      '^src/commands/shared/',
      '^src/commands/(?!(framework|output|shared)/)',
      'src/commands/shared holds what several verbs use; it never imports a verb, startup/ or the command table.',
    ),
    layer(
      'appliance-not-to-upper',
      '^src/core/appliance/',
      '^src/core/(rpc|server|transport|session)/|^src/(commands|agent)/|^src/[^/]+$',
      'The emulated appliance answers methods; how a call reaches it (rpc dispatch, server, transports), ' +
        'the client sessions and the CLI are above it: it never imports src/core/{rpc,server,transport,session}, src/commands, src/agent or an entry point.',
    ),
    {
      name: 'handlers-only-through-dispatch',
      severity: 'error',
      comment:
        "The appliance's handlers (src/core/appliance/methods/, one file per contract file) are reached through the handler " +
        'table, methods/index.ts, which only rpc/dispatcher.ts imports; a handler file imports rooms (session/, files/, jobs/, …), never another ' +
        "handler file. Whatever else needs a method's name, params or roles reads the contract (Appliance.contract).",
      from: { pathNot: '^src/core/(rpc/dispatcher|appliance/methods/index)[.]ts$' },
      to: { path: '^src/core/appliance/methods/' },
    },
    layer(
      'server-not-to-client',
      '^src/core/(server|rpc)/',
      '^src/core/(transport|session)/',
      "The server (stor serve) is the appliance's face; it never imports the client side (src/core/transport, src/core/session).",
    ),
    layer(
      'client-not-to-server',
      '^src/core/(transport|session)/',
      '^src/core/server/',
      'The client side reaches a remote appliance over the network and the embedded one through rpc dispatch: ' +
        'src/core/transport and src/core/session never import src/core/server.',
    ),
    layer(
      'transport-not-to-session',
      '^src/core/transport/',
      '^src/core/session/',
      'The session pool (src/core/session) holds transports; a transport never imports the pool.',
    ),
    layer(
      'session-not-to-appliance',
      '^src/core/session/',
      '^src/core/(appliance|rpc)/',
      'The session pool opens connections through src/core/transport only; it never imports the appliance or rpc dispatch.',
    ),
    {
      name: 'contract-is-the-floor',
      severity: 'error',
      comment:
        'The 25.10.1 contract is what both sides agree on: it imports no side. The typed client names the Transport interface, as a type only.',
      from: { path: '^src/core/contract/' },
      to: {
        path: '^src/',
        pathNot: '^src/core/(contract/|errors\\.ts$|error-catalogue\\.ts$)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'contract-types-only-transport',
      severity: 'error',
      comment:
        'The only type the contract takes from above: the Transport interface (src/core/transport/transport.ts).',
      from: { path: '^src/core/contract/' },
      to: {
        path: '^src/',
        pathNot: '^src/core/(contract/|errors\\.ts$|error-catalogue\\.ts$|transport/transport\\.ts$)',
        dependencyTypes: ['type-only'],
      },
    },
    {
      name: 'first-stage-bare',
      severity: 'error',
      comment:
        'bin/stor.js starts the first stage over bare Node in a few milliseconds: it may reach Node built-ins and ' +
        'its own sources (scripts/first-stage-sources.cjs, the list scripts/bundle.mjs checks the bundle against), nothing else (type-only imports are erased and do not count).',
      from: { path: exactly(FIRST_STAGE_SOURCES) },
      to: { pathNot: exactly(FIRST_STAGE_SOURCES), dependencyTypesNot: ['core', 'type-only'] },
    },
    {
      name: 'no-dev-dependency',
      severity: 'error',
      comment: 'What ships (src/) never needs a devDependency at run time: `npm install --omit=dev` must run it.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is invisible to these rules (and fails at run time).',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle but those in KNOWN_CYCLES below.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-at-run-time',
      severity: 'error',
      comment:
        'A cycle whose every import is a value import (static or lazy). The known type-only cycles must stay type-only.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    // Type-only imports count: a type reaching the wrong way is a layer crossed all the same.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      // Packages that name their files only under "exports" (conf) resolve as Node resolves them.
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    // Only src/ is judged; node_modules is classified (npm, npm-dev) but not walked, which keeps a cruise to ~2 s.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test|bench|scripts)/' },
    // KNOWN_CYCLES, as dependency-cruiser's baseline: a violation that matches one is not reported.
    knownViolations: KNOWN_CYCLES.map(({ rule, files }) => ({
      type: 'cycle',
      from: files[0],
      to: files[1],
      rule: { name: rule, severity: 'error' },
      cycle: files.map((name) => ({ name, dependencyTypes: [] })),
    })),
  },
};
