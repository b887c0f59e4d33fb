import { defineNoun } from '../shared/declare.js';

export const profileNoun = defineNoun({
  summary: 'list, select, tag and remove saved profiles',
  verbs: {
    list: () => import('./list.js').then((m) => m.profileListCommand),
    use: () => import('./use.js').then((m) => m.profileUseCommand),
    tag: () => import('./tag.js').then((m) => m.profileTagCommand),
    remove: () => import('./remove.js').then((m) => m.profileRemoveCommand),
  },
});
