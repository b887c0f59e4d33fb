import { defineNoun } from '../framework/declare.js';

export const replicationNoun = defineNoun('replication tasks: list, show, create, update, delete, run, status', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  create: () => import('./create.js'),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
  run: () => import('./run.js'),
  status: () => import('./status.js'),
});
