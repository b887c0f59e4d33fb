import { defineNoun } from '../framework/declare.js';

export const shareNoun = defineNoun('NFS and SMB shares: list, show, create, update, delete, enable, disable', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  nfs: defineNoun('NFS shares: create', { create: () => import('./nfs-create.js') }),
  smb: defineNoun('SMB shares: create', { create: () => import('./smb-create.js') }),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
  enable: () => import('./enable.js'),
  disable: () => import('./disable.js'),
});
