export { QUERY_PARAMS, instanceParams } from '../contract/query.js';
