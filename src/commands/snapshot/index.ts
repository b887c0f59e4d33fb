import { defineNoun } from '../shared/declare.js';

export const snapshotNoun = defineNoun({
  summary: 'list, take, delete and roll back to snapshots',
  verbs: {
    list: () => import('./list.js').then((m) => m.snapshotListCommand),
    create: () => import('./create.js').then((m) => m.snapshotCreateCommand),
    delete: () => import('./delete.js').then((m) => m.snapshotDeleteCommand),
    rollback: () => import('./rollback.js').then((m) => m.snapshotRollbackCommand),
  },
});
