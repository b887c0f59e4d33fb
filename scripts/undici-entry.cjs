'use strict';
// What scripts/bundle.mjs bundles for `undici` (dist/bundle/vendor/undici.cjs, and the agent's
// chunk): the two names src/ imports from it (Agent, buildConnector), with the request API on every
// dispatcher as undici's own index.js puts it there, and nothing else; src/ asks the Agent for a
// request (src/core/transport/http-request.ts). The package's index also loads fetch, WebSocket,
// EventSource, the cache stores, cookies, the mock and proxy agents and the interceptors at its top,
// which an upload or download never runs: about half of its 1.09 MB bundle, and of the CPU its
// require costs each process that uploads or downloads (bench/HISTORY.md, "the upload's fixed
// costs: a slimmer undici").
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const Agent = require('undici/lib/dispatcher/agent');
const api = require('undici/lib/api');
const buildConnector = require('undici/lib/core/connect');

// As undici/index.js: the request API on every dispatcher.
Object.assign(Dispatcher.prototype, api);

module.exports.Agent = Agent;
module.exports.buildConnector = buildConnector;
