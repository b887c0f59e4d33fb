// The first stage's sources (docs/SESSIONS.md, docs/ARCHITECTURE.md "Start-up"): all that may be bundled into
// dist/bundle/first-stage.cjs, which bin/stor.js loads over bare Node and which must start in a few milliseconds.
// One list for both its guards: scripts/bundle.mjs refuses a bundle that takes in anything else, and
// .dependency-cruiser.cjs (first-stage-bare) refuses an import from one of these to anything else.
module.exports = [
  'src/first-stage.ts',
  'src/core/session/paths.ts',
  'src/core/session/setting.ts',
  'src/core/session/protocol.ts',
  'src/core/session/start-agent.ts',
  'src/core/session/process-env.ts',
  'src/core/config/paths.ts',
  'src/commands/framework/command-line.ts',
  'src/commands/framework/global-options.ts',
  'src/commands/framework/option-specs.ts',
  'src/commands/framework/arg-parsers.ts',
];
