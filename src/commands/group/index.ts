import { defineNoun } from '../framework/declare.js';

export const groupNoun = defineNoun('list, create, change and delete local groups (members by name)', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  create: () => import('./create.js'),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
});
