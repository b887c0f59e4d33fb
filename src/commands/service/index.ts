import { defineNoun } from '../framework/declare.js';

export const serviceNoun = defineNoun('the services (SMB, NFS, SSH, …): list, start, stop, start at boot', {
  list: () => import('./list.js'),
  start: () => import('./start.js'),
  stop: () => import('./stop.js'),
  enable: () => import('./enable.js'),
  disable: () => import('./disable.js'),
});
