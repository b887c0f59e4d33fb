import { defineNoun } from '../shared/declare.js';

export const profileNoun = defineNoun({
  summary: 'list, import, select, tag and remove saved profiles',
  verbs: {
    list: () => import('./list.js').then((m) => m.profileListCommand),
    use: () => import('./use.js').then((m) => m.profileUseCommand),
    import: () => import('./import.js').then((m) => m.profileImportCommand),
    tag: () => import('./tag.js').then((m) => m.profileTagCommand),
    remove: () => import('./remove.js').then((m) => m.profileRemoveCommand),
  },
});
