import { defineNoun } from '../framework/declare.js';

export const userNoun = defineNoun('list, create, change and delete local users (groups by name)', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  create: () => import('./create.js'),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
});
