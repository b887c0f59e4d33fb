import { defineNoun } from '../framework/declare.js';

export const privilegeNoun = defineNoun(
  'inspect privileges and repair role lists that lock users out, as this target judges them',
  {
    list: () => import('./list.js'),
    show: () => import('./show.js'),
    check: () => import('./check.js'),
    fix: () => import('./fix.js'),
    create: () => import('./create.js'),
    update: () => import('./update.js'),
    delete: () => import('./delete.js'),
    roles: () => import('./roles.js'),
    suggest: () => import('./suggest.js'),
  },
);
