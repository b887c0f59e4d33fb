import { defineNoun } from '../framework/declare.js';

export const shareNoun = defineNoun('NFS and SMB shares: list, show, create, update, delete, enable, disable', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  'create-nfs': () => import('./create-nfs.js'),
  'create-smb': () => import('./create-smb.js'),
  update: () => import('./update.js'),
  delete: () => import('./delete.js'),
  enable: () => import('./enable.js'),
  disable: () => import('./disable.js'),
});
