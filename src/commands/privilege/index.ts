import { defineNoun } from '../shared/declare.js';

export const privilegeNoun = defineNoun({
  summary: 'inspect privileges and repair role lists that lock users out, as this target judges them',
  verbs: {
    list: () => import('./list.js').then((m) => m.privilegeListCommand),
    show: () => import('./show.js').then((m) => m.privilegeShowCommand),
    check: () => import('./check.js').then((m) => m.privilegeCheckCommand),
    fix: () => import('./fix.js').then((m) => m.privilegeFixCommand),
    create: () => import('./create.js').then((m) => m.privilegeCreateCommand),
    update: () => import('./update.js').then((m) => m.privilegeUpdateCommand),
    delete: () => import('./delete.js').then((m) => m.privilegeDeleteCommand),
    roles: () => import('./roles.js').then((m) => m.privilegeRolesCommand),
  },
});
