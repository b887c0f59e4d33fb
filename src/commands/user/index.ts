import { defineNoun } from '../shared/declare.js';

export const userNoun = defineNoun({
  summary: 'list, create, change and delete local users (groups by name)',
  verbs: {
    list: () => import('./list.js').then((m) => m.userListCommand),
    show: () => import('./show.js').then((m) => m.userShowCommand),
    create: () => import('./create.js').then((m) => m.userCreateCommand),
    update: () => import('./update.js').then((m) => m.userUpdateCommand),
    delete: () => import('./delete.js').then((m) => m.userDeleteCommand),
  },
});
