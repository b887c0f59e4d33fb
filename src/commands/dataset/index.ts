import { defineNoun } from '../shared/declare.js';

export const datasetNoun = defineNoun({
  summary: 'list, create and delete datasets',
  verbs: {
    list: () => import('./list.js').then((m) => m.datasetListCommand),
    create: () => import('./create.js').then((m) => m.datasetCreateCommand),
    delete: () => import('./delete.js').then((m) => m.datasetDeleteCommand),
  },
});
