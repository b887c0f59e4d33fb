import { defineNoun } from '../framework/declare.js';

export const poolNoun = defineNoun('list pools and their health', {
  list: () => import('./list.js'),
});
