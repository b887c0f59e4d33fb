import { defineNoun } from '../framework/declare.js';

export const sessionNoun = defineNoun("list and stop the session agent's logged-in connections", {
  list: () => import('./list.js'),
  stop: () => import('./stop.js'),
});
