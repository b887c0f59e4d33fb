import { defineNoun } from '../framework/declare.js';

export const snapshotNoun = defineNoun('list, take, delete and roll back to snapshots', {
  list: () => import('./list.js'),
  create: () => import('./create.js'),
  delete: () => import('./delete.js'),
  rollback: () => import('./rollback.js'),
});
