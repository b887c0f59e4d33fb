import { defineNoun } from '../shared/declare.js';

export const poolNoun = defineNoun('list pools and their health', {
  list: () => import('./list.js'),
});
