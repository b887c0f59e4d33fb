import { defineNoun } from '../framework/declare.js';

export const profileNoun = defineNoun('list, import, select, tag and remove saved profiles', {
  list: () => import('./list.js'),
  use: () => import('./use.js'),
  import: () => import('./import.js'),
  tag: () => import('./tag.js'),
  remove: () => import('./remove.js'),
});
