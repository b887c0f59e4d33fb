import { defineNoun } from '../shared/declare.js';

export const sessionNoun = defineNoun({
  summary: "list and stop the session agent's logged-in connections",
  verbs: {
    list: () => import('./list.js').then((m) => m.sessionListCommand),
    stop: () => import('./stop.js').then((m) => m.sessionStopCommand),
  },
});
