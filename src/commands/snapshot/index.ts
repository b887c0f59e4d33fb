import { defineNoun } from '../framework/declare.js';
import { snapshotTaskNoun } from './task/index.js';

export const snapshotNoun = defineNoun('list, take, delete and roll back to snapshots; periodic snapshot tasks', {
  list: () => import('./list.js'),
  create: () => import('./create.js'),
  delete: () => import('./delete.js'),
  rollback: () => import('./rollback.js'),
  task: snapshotTaskNoun,
});
