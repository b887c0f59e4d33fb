import { defineNoun } from '../shared/declare.js';

export const jobNoun = defineNoun({
  summary: 'list, show, wait for and abort appliance jobs',
  verbs: {
    list: () => import('./list.js').then((m) => m.jobListCommand),
    show: () => import('./show.js').then((m) => m.jobShowCommand),
    wait: () => import('./wait.js').then((m) => m.jobWaitCommand),
    abort: () => import('./abort.js').then((m) => m.jobAbortCommand),
  },
});
