'use strict';
// What scripts/bundle.mjs bundles for `undici` (dist/bundle/vendor/undici.cjs, and the agent's
// chunk): the three names src/ imports from it (Agent, buildConnector, request), built as undici's
// own index.js builds them, and nothing else. The package's index also loads fetch, WebSocket,
// EventSource, the cache stores, cookies, the mock and proxy agents and the interceptors at its top,
// which an upload or download never runs: about half of its 1.09 MB bundle, and of the CPU its
// require costs each process that uploads or downloads (bench/HISTORY.md, "the upload's fixed
// costs: a slimmer undici").
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const Agent = require('undici/lib/dispatcher/agent');
const api = require('undici/lib/api');
const buildConnector = require('undici/lib/core/connect');
const util = require('undici/lib/core/util');
const { InvalidArgumentError } = require('undici/lib/core/errors');
const { getGlobalDispatcher } = require('undici/lib/global');

// As undici/index.js: the request API on every dispatcher.
Object.assign(Dispatcher.prototype, api);

// undici/index.js's makeDispatcher (undici 7), as it is: `request(url, opts)` on `opts.dispatcher`.
function makeDispatcher(fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts;
      opts = null;
    }

    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new InvalidArgumentError('invalid url');
    }

    if (opts != null && typeof opts !== 'object') {
      throw new InvalidArgumentError('invalid opts');
    }

    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') {
        throw new InvalidArgumentError('invalid opts.path');
      }

      let path = opts.path;
      if (!opts.path.startsWith('/')) {
        path = `/${path}`;
      }

      url = new URL(util.parseOrigin(url).origin + path);
    } else {
      if (!opts) {
        opts = typeof url === 'object' ? url : {};
      }

      url = util.parseURL(url);
    }

    const { agent, dispatcher = getGlobalDispatcher() } = opts;

    if (agent) {
      throw new InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
    }

    return fn.call(
      dispatcher,
      {
        ...opts,
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: opts.method || (opts.body ? 'PUT' : 'GET'),
      },
      handler,
    );
  };
}

module.exports.Agent = Agent;
module.exports.buildConnector = buildConnector;
module.exports.request = makeDispatcher(api.request);
