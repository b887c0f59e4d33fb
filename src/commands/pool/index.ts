import { defineNoun } from '../shared/declare.js';

export const poolNoun = defineNoun({
  summary: 'list pools and their health',
  verbs: {
    list: () => import('./list.js').then((m) => m.poolListCommand),
  },
});
