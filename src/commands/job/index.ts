import { defineNoun } from '../framework/declare.js';

export const jobNoun = defineNoun('list, show, wait for and abort appliance jobs', {
  list: () => import('./list.js'),
  show: () => import('./show.js'),
  wait: () => import('./wait.js'),
  abort: () => import('./abort.js'),
});
