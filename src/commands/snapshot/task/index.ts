import { defineNoun } from '../../framework/declare.js';

export const snapshotTaskNoun = defineNoun('periodic snapshot tasks: list, show, create, update, delete, run', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  create: () => import('./create.js'),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
  run: () => import('./run.js'),
});
