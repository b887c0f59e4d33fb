import { defineNoun } from '../shared/declare.js';

export const datasetNoun = defineNoun('list, create and delete datasets', {
  list: () => import('./list.js'),
  create: () => import('./create.js'),
  delete: () => import('./delete.js'),
});
