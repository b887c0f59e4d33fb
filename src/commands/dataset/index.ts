import { defineNoun } from '../framework/declare.js';

export const datasetNoun = defineNoun('list, show, create, update and delete datasets', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  create: () => import('./create.js'),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
});
