import { defineNoun } from '../shared/declare.js';

export const groupNoun = defineNoun({
  summary: 'list, create, change and delete local groups (members by name)',
  verbs: {
    list: () => import('./list.js').then((m) => m.groupListCommand),
    show: () => import('./show.js').then((m) => m.groupShowCommand),
    create: () => import('./create.js').then((m) => m.groupCreateCommand),
    update: () => import('./update.js').then((m) => m.groupUpdateCommand),
    delete: () => import('./delete.js').then((m) => m.groupDeleteCommand),
  },
});
